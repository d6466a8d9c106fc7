// Package voting is the article-voting system of Redis in Action, chapter 1,
// for Go services: users post articles, vote them up or down, and read them a
// page at a time, by score or by posting time, across the site or within a
// group (topic). Around the votes it keeps what a site needs of its people
// and content: each user's articles, the groups by size, edits and batch
// reads, and, as options, each poster's karma and links posted once.
//
// # The model
//
// An article's score is its posting time in Unix seconds plus a weight W for
// each net vote (up-votes minus down-votes). Time moving forward is what
// makes old articles sink; a vote buys W seconds of freshness. The default W
// is 432, a day divided by 200 votes, so an article with 200 votes stays level
// with articles a day younger. The poster's own up-vote counts from the
// start. After the cutoff (a week by default) an article takes no more votes,
// its score is fixed, and its voter sets expire.
//
// # Redis
//
// A Store reads and writes the book's own key layout (see the README), so it
// can serve data written by the book's code and the other way round; WithPrefix
// puts a namespace in front of every key. Each write (posting, a vote, a group
// change, a deletion) is one Lua script: one atomic step and one round trip, so
// that a score always equals time + W x (up-votes - down-votes), whatever runs
// concurrently. A listing is two round trips whatever the page size: the page
// of ids, then one pipelined batch of the articles. A group's listing is the
// book's cached intersection of the group with an index, or, with live
// groups (a namespace the library creates keeps them), an index of the
// group's own that every write keeps exact.
//
// What a namespace stores (its indexes, vote weight and cutoff) is its
// own, kept in Redis beside its data (Settings): every Store's writes keep
// every index the namespace keeps, whatever options the Store was given,
// and a Store given another weight or cutoff is refused. StopKeeping and
// Rescore change them, in bounded steps.
//
// No call holds Redis for more than a few milliseconds, whatever the size of
// the data and whatever users send: an article is in at most MaxGroups
// groups, and work that grows with the data (trimming a window, Reindex,
// clearing a deleted article's voters' histories) is done in bounded steps,
// each an atomic script. The exception is the book's own cached group
// listing, which intersects a whole group in one step; live groups are the
// bounded way to list a large group.
//
// # Around the votes
//
// DeleteArticle removes an article and every entry of it, in one script (and,
// for an article with many voters whose histories are kept, further steps
// that clear their entries); EditArticle changes its title and link alone.
// CountArticles and CountGroupArticles count a listing for a page count;
// GetArticlesAfter and GetGroupArticlesAfter page by cursor, so that a walk
// through a listing that votes move lists each untouched article once; Rank
// gives an article's place in a listing; Articles reads any number of
// articles by id in one round trip. Cutoff tells when voting on an article
// closes; and WithUserHistory keeps each user's votes for UserHistory (and
// CountUserHistory), and for UserVotes once voting has closed. Article,
// UserVote, UserKarma, GroupSize and Direction encode as JSON directly, and
// so does every page: times are kept to the years 1 to 9999, which JSON can
// carry, and scores finite.
//
// Redis does not roll a script back, so each script reads and checks what it
// needs first; makes first, each with its inverse, the writes that no read
// has proven possible, undoing them if Redis refuses one; and then only
// writes that cannot fail: an operation does all of its change or none of
// it, and its error says which. Stored data that neither this package nor
// the book's code would write (a time of "abc", a key of the wrong type) is
// refused with ErrCorrupt, and listings skip such articles.
//
// # People and content
//
// UserArticles lists the articles a user has posted, newest first, and
// CountUserArticles counts them; Groups lists the groups that hold an
// article, largest first, and CountGroups counts them: every post, group
// change and deletion keeps both in its own atomic step. WithKarma keeps
// each poster's karma, the up-votes less the down-votes other users cast on
// their articles (the poster's own vote never counts), moved by every vote:
// Karma reads a user's, TopPosters the highest. WithUniqueLinks refuses a
// post or an edit whose link another article has, with ErrDuplicate naming
// that article, and ArticleByLink finds the article that has a link; two
// links are the same by the rule in the Input section. Data written before
// an option was on, or by the book's code, is counted by Reindex, which
// names the articles whose links another has (ReindexProgress); until then
// karma and the index of links answer ErrNotIndexed.
//
// # Input
//
// Every method checks what it is given before anything is sent to Redis, and
// refuses what breaks these rules with an error wrapping ErrInvalid that says
// which rule, writing nothing:
//
//   - a user id (a voter or a poster): 1 to MaxUserLen characters of valid
//     UTF-8, with no control characters and no space at either end, so not
//     blank;
//   - a title: the same, 1 to MaxTitleLen characters;
//   - a link: an absolute http or https URL with a host, at most MaxLinkLen
//     bytes, with no spaces or control characters; the host is a name
//     (letters of any script, digits, ._~!$&'()*+,;=- and %-escapes of
//     non-ASCII bytes) or an IPv6 address in brackets, with an optional port.
//     Two links are the same link (schema.LinkKey, which WithUniqueLinks keeps
//     unique and ArticleByLink looks up by) when they differ only in their
//     fragment, from the first '#', or in the case of the ASCII letters of
//     their scheme and host: https://Example.COM/a#top is
//     https://example.com/a, while a path, query or user info in another
//     case is another link, since servers may tell their case apart;
//   - an article id: what PostArticle returns, a positive decimal integer with
//     no sign, no leading zero and no "article:" in front;
//   - a group name: 1 to MaxGroupLen letters, digits, '-', '_' and '.', so no
//     braces, colons, stars or spaces; an article is in at most MaxGroups
//     groups, and a call names at most that many (a name given twice counts
//     once);
//   - a Direction: Up, Down or None; the zero Direction is one never given;
//   - a page: from 1; a page past the end is empty.
//
// Every method takes a context, honoured as far as the connection allows (see
// Pool); a round trip whose context has no earlier deadline waits for Redis
// at most the Store's timeout (WithTimeout, 5 s by default). Methods return
// errors that wrap ErrNotFound, ErrVotingClosed, ErrInvalid, ErrCorrupt,
// ErrNotIndexed or ErrDuplicate where those apply, for errors.Is, worded
// "voting: <operation>: <what went wrong>". Bad input is rejected before
// anything is sent to Redis. A Store is safe for concurrent use.
package voting
