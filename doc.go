// Package voting is the article-voting system of Redis in Action, chapter 1,
// for Go services: users post articles, vote them up or down, and read them a
// page at a time, by score or by posting time, across the site or within a
// group (topic). Around the votes it keeps what a site needs of its people
// and content: each user's articles, the groups by size, edits and batch
// reads, and, as options, more orders, each poster's karma, links posted
// once and each user's votes.
//
// A [Store] is one namespace of articles in Redis, opened with [New] on a
// redigo pool. Guides with examples are in the repository's docs/ folder:
// orders.md, paging.md, groups.md, people.md, comments.md, operations.md,
// cluster.md, testing.md and upgrading.md (from the API before v1).
//
// # The model
//
// An article's score is its posting time in Unix seconds plus a weight W for
// each net vote (up-votes minus down-votes). Time moving forward is what
// makes old articles sink; a vote buys W seconds of freshness. The default W
// is 432, a day divided by 200 votes, so an article with 200 votes stays level
// with articles a day younger. The poster's own up-vote counts from the
// start. A user has one vote per article, [Up], [Down] or [None]; switching
// moves the score by 2W. After the cutoff (a week by default) an article
// takes no more votes, its score is fixed, and its voter sets expire.
//
// An [Article] carries Points, its net votes, what a site shows beside a
// title; Upvotes (the poster's own included) and Downvotes; and
// RankingScore, the book's score, a time of about 1.8e9.
//
// # Listings and paging
//
// A [Query] names a listing of articles: the site's, a group's (Group) or a
// user's articles (User, newest first, so Order ByTime), in an [Order].
// [Store.List] reads a page of it, [Store.Count] counts it for "page 3 of
// 40", [Store.Rank] gives an article's place in it and [Store.Cursor] the
// cursor of the page after an article. [Store.GetArticles] and
// [Store.GetGroupArticles] are the book's calls: a numbered page of the
// site or of a group.
//
// Every list pages the same way, by a [Paging]: the listings of articles,
// the groups by size ([Store.Groups]), the posters by karma
// ([Store.TopPosters]) and a user's votes ([Store.UserHistory]). Page 1, 2,
// ... reads a numbered page (and next is ""); Page 0 reads by cursor, After
// "" for the first page, and returns next, the cursor of the page after it
// ("" after the last). Page and After together are an error. Size is the
// page's size for this call, 0 for the Store's (WithPageSize), at most
// MaxPageSize. A walk by cursor lists once each article that no write moved
// during it, where numbered pages skip or repeat the articles that votes
// move across a page's edge.
//
// The library keeps no record of a group or a user beyond their articles and
// votes. A group that never held an article and one that emptied both list
// as empty pages and count 0, and Groups lists only the groups that hold an
// article; a user who never posted and one whose articles were all deleted
// both list empty and count 0, and Karma gives 0 for both. ErrNotFound is
// for article ids.
//
// # Orders
//
// ByScore (the book's ranking) and ByTime are kept by every namespace.
// WithOrders keeps more: ByVotes (net votes), ByControversy, ByHot and ByBest
// (Reddit's), and TopDay, TopWeek, TopMonth and TopYear (net votes among the
// articles posted within the window, by the Store's clock). Each kept order
// is a sorted set written in the same script as the post or the vote that
// moves it; a window's set is trimmed of the articles that have aged out
// before it is read, in bounded steps. [ParseOrder] reads an order's name as
// a request gives it ("hot", "top-week", "new"). A listing of an order the
// namespace does not keep is an error wrapping ErrInvalid.
//
// # Groups
//
// An article is in at most MaxGroups groups, given when it is posted or
// changed by [Store.AddToGroups] and [Store.RemoveFromGroups]. A group's
// listing is read from its live indexes where the namespace keeps live
// groups (a namespace the library creates does): one sorted set per group
// per kept order, written in the same script as the post, the vote or the
// group change, so a group page is exact and costs what a site page costs,
// at any size. Elsewhere it is the book's listing: the intersection of the
// group with the order's index, cached for the group cache TTL
// (WithGroupCacheTTL), as old as its cache and built in one step whose
// Redis time grows with the group.
//
// # People and content
//
// [Store.DeleteArticle] removes an article and every entry of it, in one
// step; [Store.EditArticle] changes its title and link alone;
// [Store.Articles] reads any number of articles by id in one round trip, and
// [Store.UserVotes] a user's vote on each. WithKarma keeps each poster's
// karma, the up-votes less the down-votes other users cast on their
// articles (the poster's own vote never counts), moved by every vote:
// [Store.Karma] reads a user's, [Store.TopPosters] the highest.
// WithUniqueLinks refuses a post or an edit whose link another article has,
// with ErrDuplicate naming that article, and [Store.ArticleByLink] finds the
// article that has a link. WithUserHistory keeps each user's votes for
// [Store.UserHistory], and for UserVotes once voting has closed.
// WithActiveUsers keeps when each user last posted an article or a
// comment: [Store.ActiveUsers] counts those active since a time, as a site
// shows its users active in the last day or month, and [Store.LastActive]
// reads one's. Article,
// UserVote, UserKarma, GroupSize, Settings and Direction encode as JSON
// directly, and so does every page: times are kept to the years 1 to 9999,
// which JSON can carry, and scores finite.
//
// # Comments
//
// [Store.PostComment] posts a comment on an article, or a reply to one of
// its comments at any depth (to MaxCommentDepth), which starts with its
// poster's up-vote; [Store.VoteComment] votes on it as Vote does on an
// article, [Store.UserCommentVotes] reads a user's arrows for a page of
// them, [Store.EditComment] sets its body. [Store.Comments] reads an
// article's comments, or a comment's replies, a page at a time by number
// or cursor, in a CommentOrder: best (the Wilson lower bound, as ByBest),
// top, new, old or controversial, each an index kept in the write that
// moves it. [Store.Thread] reads the first screen of a discussion as a
// tree, each node with the count of its replies not read, in depth + 2
// round trips whatever the thread's size. Article.Comments counts an
// article's comments with every listing. [Store.DeleteComment] leaves a
// comment with replies as a tombstone (Comment.Deleted, no poster, no
// body) and takes one without replies away; DeleteArticle takes the whole
// discussion, in bounded steps. [Store.UserComments] lists a user's
// comments, newest first. With WithKarma, each user's comment karma is
// kept apart from the karma of their articles: [Store.CommentKarma] reads
// a user's, [Store.TopCommenters] the highest. Reindex builds every
// comment index, and counts comment karma, from the comments' hashes.
// A body is multi-line text, kept as posted. [Store.Profile] reads what
// the namespace knows of a user (their counts of articles, comments and
// votes kept, and their karma) in one round trip, and answers ErrNotFound
// for a user it knows nothing of. docs/comments.md is the guide.
//
// # The namespace's settings
//
// What a namespace stores is its own, kept in Redis beside its data (the
// hash settings:): the orders kept, live groups, the history's time, karma,
// unique links, the vote weight and the cutoff. [Store.Settings] is the one
// way to read them. A Store's first call reads them, or writes them from its
// options on a namespace with none. A Store given an index the namespace
// lacks adds it, and from then on every Store's writes keep it, whatever
// their options; its listings answer ErrNotIndexed until it is built for
// the articles written before: by that Store in the background
// (WithAutoReindex, on by default: one Store of the namespace at a time,
// under a lease another takes over from a builder that died), or by
// [Store.Reindex]. Settings reports what is unbuilt and how far the build
// has come (Settings.Building). Every write checks, inside
// Redis, that the settings are those it was made for, and is made again if
// they have changed. A Store given another vote weight, cutoff or history
// time than the namespace's is refused on every call. [Store.StopKeeping]
// takes indexes out, and [Store.Rescore] changes the weight and the cutoff,
// in bounded steps, each keeping in Redis where its walk stands (the hash
// progress:) so that a call cut short is gone on with by the next. A
// Store told that an index it was given is not kept learns that another
// Store's StopKeeping stopped it. Page size, timeout, clock and cache TTL are each
// Store's own ([Store.PageSize], [Store.Timeout]).
//
// Articles another writer posts (the book's code, a script, an older
// release) are noticed: the namespace counts the articles the library has
// indexed, and a listing of an index beyond the book's two answers
// ErrNotIndexed while that count and the size of the time index differ.
// Votes another writer casts are not noticed: run Reindex after them.
//
// # Options
//
// [New] takes these, each documented with its default; an out-of-range
// value, or a nil option, makes New return an error wrapping ErrInvalid:
//
//   - WithPrefix(p), "": a namespace's prefix, in front of every key and
//     member; "" is the book's exact layout. On Redis Cluster it must hold
//     a hash tag, as "{news}:".
//   - WithVoteWeight(w), 432, and WithCutoff(d), a week: the score a vote is
//     worth and how long an article takes votes; the namespace's settings.
//   - WithPageSize(n), 25: a page's size when a call gives none, 1 to
//     MaxPageSize.
//   - WithGroupCacheTTL(d), 60 s: list groups through the book's cache, kept
//     this long; without it a Store lists groups live where the namespace
//     keeps live groups.
//   - WithClock(f), time.Now: the clock of posting times, the cutoff and the
//     windows, for tests and simulations.
//   - WithTimeout(d), 5 s: the longest a round trip waits for Redis when the
//     call's context has no earlier deadline; 0 for no bound.
//   - WithClientCache(n), 0: keep up to n numbered pages and counts in the
//     Store's memory, emptied at every write to the namespace, which Redis
//     reports (client-side caching, Redis 6 and later); Close ends it.
//   - WithAutoPipelining(on), on: votes that find more than 8 others in
//     flight share two connections and reach Redis together; off, every
//     call takes a connection of the pool.
//   - WithAutoReindex(on), on: a Store that adds an index to a namespace
//     with articles builds it in the background; off, Reindex is the
//     operator's to run. Close stops the build.
//   - WithOrders(o...), WithLiveGroups(), WithUserHistory(d), WithKarma(),
//     WithUniqueLinks(), WithActiveUsers(): indexes the namespace keeps beyond the book's;
//     each is the namespace's setting once a Store has added it, and each
//     costs every write that moves it a few commands and memory per entry
//     (docs/operations.md has the figures). A namespace the library creates
//     keeps live groups unless its first Store was given WithGroupCacheTTL.
//
// # Errors
//
// Every error names the package once, then the operation, then what went
// wrong: "voting: vote on article 7: voting closed: the article is older
// than 168h0m0s". Test them with errors.Is:
//
//   - ErrNotFound: a well-formed article id with no article (Vote, Article,
//     AddToGroups, EditArticle, DeleteArticle, Rank, Cursor), or a link no
//     article has (ArticleByLink).
//   - ErrVotingClosed: a vote after the article's cutoff.
//   - ErrInvalid: bad input or option, an order the namespace does not keep,
//     an article in more than MaxGroups groups, a page and a cursor
//     together, a cursor of another list, UserHistory without a history,
//     Karma or TopPosters without karma, ArticleByLink without unique
//     links, a group's Rank without live groups, or a Store given another
//     vote weight, cutoff or history time than the namespace's.
//   - ErrNotIndexed: a listing or count of an index that does not hold every
//     article yet (an option added after articles were posted, or articles
//     another writer posted), until it is built: in the background by the
//     Store that added it (WithAutoReindex), or by Reindex.
//   - ErrDuplicate: with WithUniqueLinks, a post or an edit whose link
//     another article has; the error names that article.
//   - ErrCorrupt: stored data that neither this library nor the book's code
//     writes (a time of "abc", a key of the wrong type); the error names the
//     key or field.
//
// An operation that returns ErrNotFound, ErrVotingClosed, ErrInvalid,
// ErrDuplicate or ErrCorrupt has written nothing. Redis does not roll a
// script back, so each script reads and checks what it needs first; makes
// first, each with its inverse, the writes that no read has proven
// possible, undoing them if Redis refuses one; and then only writes that
// cannot fail. Listings skip an article they cannot read, as they skip one
// whose hash is gone. Redis and connection errors come back wrapped the same
// way; a call whose context ended returns an error wrapping
// context.Canceled or context.DeadlineExceeded, and one that Redis did not
// answer within the Store's timeout one wrapping os.ErrDeadlineExceeded.
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
//   - a comment's body: multi-line text of 1 to MaxCommentLen characters
//     of valid UTF-8, with line breaks, tabs and spaces anywhere, and no
//     other control character below U+0020 (NUL among them); not blank;
//   - a link: an absolute http or https URL with a host, at most MaxLinkLen
//     bytes, with no spaces or control characters; the host is a name
//     (letters of any script, digits, ._~!$&'()*+,;=- and %-escapes of
//     non-ASCII bytes) or an IPv6 address in brackets, with an optional port.
//     Two links are the same link (which WithUniqueLinks keeps unique and
//     ArticleByLink looks up by) when they differ only in their fragment,
//     from the first '#', or in the case of the ASCII letters of their
//     scheme and host: https://Example.COM/a#top is https://example.com/a,
//     while a path, query or user info in another case is another link,
//     since servers may tell their case apart;
//   - an article id: what PostArticle returns, a positive decimal integer with
//     no sign, no leading zero and no "article:" in front;
//   - a group name: 1 to MaxGroupLen letters, digits, '-', '_' and '.', so no
//     braces, colons, stars or spaces; an article is in at most MaxGroups
//     groups, and a call names at most that many (a name given twice counts
//     once);
//   - a Direction: Up, Down or None; the zero Direction is one never given;
//   - a Paging: Page from 1, or 0 with a cursor this library wrote for the
//     same list; Size 0 to MaxPageSize; a page past the end is empty;
//   - a Query: a Group or a User, not both; a User's articles by ByTime.
//
// # Round trips and contexts
//
// Each write is one Lua script, one atomic step and one round trip once the
// script is loaded (its first use after a server start or SCRIPT FLUSH sends
// its source too). A page of a listing is two round trips whatever its size:
// the page of ids, then one pipelined batch of the articles and their
// scores; a window's page may take more after a long quiet spell, each a
// bounded trim. A count, a rank, a cursor, Article, Articles and UserVotes
// are one; UserHistory and ArticleByLink two. A Store's first call reads the
// namespace's settings, one round trip more once per Store. With
// WithClientCache, a page or count read again before anything in the
// namespace changes takes none. On Redis Cluster a call that the cluster
// redirects (MOVED, ASK) or asks to wait (TRYAGAIN) is sent again, up to 10
// times with a growing pause; Redis refuses such a call before running it,
// so nothing is applied twice.
//
// Every method takes a context. A deadline becomes the connection's read
// timeout for each round trip (redis.ConnWithTimeout), so it costs no
// goroutine; a context that can be cancelled but has no deadline is watched
// through redis.ConnWithContext, one goroutine per round trip. A round trip
// whose context has no earlier deadline waits for Redis at most the Store's
// timeout (WithTimeout, 5 s by default). A pool's GetContext, where it has
// one (see [Pool]), bounds the wait for a connection. A connection whose
// replies were not all read is never given back to the pool as healthy.
//
// A write the Store knows it never sent fails with an error wrapping
// ErrNotSent beside its cause: its context ended, or its deadline passed,
// before its round trip began; no connection came from the pool within the
// timeout, or the dial of one failed; or, on a connection auto-pipelining
// shares (WithAutoPipelining), its context ended or its wait ran out the
// timeout while its command waited behind others' and before the
// connection's writer took it, which the writer then skips. Such a write
// never lands, so the user's next vote cannot be overtaken by it. Any
// other failure of a write may have landed, and does not wrap ErrNotSent:
// its context ending, the timeout or a broken connection once a byte of
// its command may have been written, or while its reply was awaited.
//
// # Concurrency
//
// A Store holds only its configuration, the namespace's settings as it
// last read them and, with WithClientCache, pages that no write has changed
// since it read them; it is safe for concurrent use, and any number of
// Stores, in any number of processes, can serve one namespace. Each write is one
// script, so concurrent votes keep every score equal to time + W x (up -
// down) and every index equal to what the counters say; live group indexes
// move in the same script as the write that moves them; a vote or group
// change that races a deletion lands before it, and is deleted with the
// article, or after it, and gets ErrNotFound; two posts of one link at once,
// with WithUniqueLinks, give one article and one ErrDuplicate. A group
// listing's cache is checked and built in one script, so concurrent readers
// of a cold group build it once.
//
// # Bounds
//
// No call holds Redis for more than a few milliseconds, whatever the size of
// the data and whatever users send: an article is in at most MaxGroups
// groups, a page holds at most MaxPageSize items, and work that grows with
// the data (trimming a window, Reindex, Rescore, StopKeeping, clearing a
// deleted article's voters' histories) is done in bounded steps, each an
// atomic script. The exception is the book's own cached group listing, which
// intersects a whole group in one step; live groups are the bounded way to
// list a large group.
//
// # Key schema
//
// With no prefix these are the book's own keys, so data written by the
// book's code and by this package can be served by either; a prefix goes in
// front of every key and every member (news:article:7 in news:score:).
//
//	article:              string  counter; INCR gives the next article id
//	article:<id>          hash    title, link, poster, time (Unix seconds, may be
//	                              fractional), votes (up-votes), downvotes (once
//	                              there is one); karma, with WithKarma: the
//	                              article's part of its poster's karma
//	score:                zset    member article:<id>, score = time + W x (up - down)
//	time:                 zset    member article:<id>, score = posting time
//	voted:<id>            set     users who up-voted; expires at the cutoff
//	downvoted:<id>        set     users who down-voted; expires at the cutoff
//	group:<name>          set     members article:<id>
//	groups:<id>           set     the names of the groups article:<id> is in: this
//	                              package's record; the book's code writes none, and
//	                              Reindex builds it from the group:<name> sets
//	groupsizes:           zset    member a group's name, score = its number of
//	                              articles (Groups)
//	posts:<user>          zset    the user's articles: member article:<id>,
//	                              score = posting time
//	score:<name>          zset    the book's cached group listing by score (and
//	time:<name>                   by time), expiring after the cache TTL
//	reindex:              hash    where an unfinished Reindex goes on from
//	indexed:              hash    which indexes hold every article: a field per
//	                              index beyond the book's two ("votes",
//	                              "live:score", "karma", "links", ...), "1" built,
//	                              "0:<token>" being built by that Reindex run; and
//	                              "articles", the number of articles indexed
//	settings:             hash    the namespace's settings: gen (a generation every
//	                              write checks), weight, cutoff and history (ms),
//	                              orders, kinds (live, karma, links)
//	progress:             hash    where the walks of Rescore (rescore, its values;
//	                              rescore-phase; rescore-at) and of StopKeeping
//	                              (stop-live <orders>, stop-karma-articles, ...: a
//	                              cursor, or "done") go on from
//	builder:              string  the token of the Store that builds unbuilt indexes
//	                              in the background (WithAutoReindex); expires
//	                              10 s after the builder last renewed it
//
// With WithOrders, per kept order (members article:<id>):
//
//	votes:, controversy:, zset    the order's value of each article: net votes,
//	hot:, best:                   Reddit's controversy, hot ranking and best
//	top-day:, top-week:,  zset    net votes of the articles posted within the
//	top-month:, top-year:         window (and of those aged out, until trimmed)
//	trimmed:              hash    per window (and per live group's window,
//	                              "top-week:<name>"), the posting time up to which
//	                              its set has been trimmed
//	<index><name>         zset    the book's cached group listing of that order
//
// With WithLiveGroups, instead of the cached listings:
//
//	live:<index><name>    zset    the group's articles in that order's index, with
//	                              the same scores: live:score:news, live:time:news
//
// With WithKarma, WithUniqueLinks, WithUserHistory and WithActiveUsers:
//
//	karma:                zset    member a user who has posted, score = their karma
//	links:                hash    field a link (scheme and host in lower case, no
//	                              fragment), value the id of the article that holds it
//	linkshares:           zset    articles Reindex found sharing a link with its
//	                              holder: members the link as links: writes it, a
//	                              zero byte, the posting time (whole seconds from
//	                              the year 1 in 12 digits, the fraction in 9) and
//	                              the id (19 digits), all scored 0, so a link's
//	                              sort oldest first; the oldest takes the link
//	                              when its holder gives it up
//	history:<user>        zset    members up:article:<id> and down:article:<id>,
//	                              score = time of the vote; expires the history's
//	                              time after the user's last vote
//	active:               zset    with WithActiveUsers, member a user who has posted,
//	                              score = the latest time they posted an article or
//	                              a comment
//	deleted:voted:<id>    set     the voter sets of a deleted article whose voters'
//	deleted:downvoted:<id>        histories DeleteArticle has yet to clear
//	comment:              string  counter; INCR gives the next comment id
//	comment:<id>          hash    a comment (PostComment): article, parent, poster,
//	                              body, time, votes, downvotes, replies, depth,
//	                              deleted, and own, the poster's own vote if they
//	                              changed it (-1, or 0 for none)
//	comment-up:<id>       set     a comment's up-voters (and its down-voters); each
//	comment-down:<id>             expires at the cutoff
//	replies:<kind>:a:<id> zset    the comments on an article (and the replies to a
//	replies:<kind>:c:<id>         comment), scored by best, net, time and
//	                              controversy
//	thread:<id>           zset    an article's comments by time
//	usercomments:<user>   zset    a user's comments by time
//	karma-comments:       zset    with WithKarma, member a user with a comment, score =
//	                              the sum of the karma fields of their comments
//	                              (CommentKarma), each up - down less the poster's own vote
//
// Times are decimal Unix seconds, as the book's Python writes them, of the
// years 1 to 9999; counters are decimal integers of at most 18 digits; scores
// are finite; a field outside these rules is reported with ErrCorrupt. The
// downvoted sets and every key and field the book lacks are this package's
// additions, which the book's code never reads.
//
// A prefix is at most MaxPrefixLen printable bytes, with no spaces. New
// refuses one (ErrInvalid) under which another namespace's keys could fall:
// one that contains "history:", "posts:" or "usercomments:" or ends in
// "deleted:", "down" or "live:" (under "", the live index live:score:news would be prefix
// "live:"'s cached listing score:news). A prefix holding a hash tag, such as
// "{news}:", puts the whole namespace in one Redis Cluster slot, so that each
// script stays one atomic step there; group names hold no braces, so the
// prefix's tag is always the first in a key.
package voting
