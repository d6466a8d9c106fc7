package schema

// This file holds the keys of a namespace: how each key and key prefix is
// named from the namespace's prefix, and the families of keys (Families),
// the one list of them. The voting package's keys.go and doc.go say what
// each holds, in tables a test holds to Families.

// The key parts: each key's name after the prefix, or the start of it.
const (
	ArticlePart   = "article:"
	ScorePart     = "score:"
	TimePart      = "time:"
	VotedPart     = "voted:"
	DownvotedPart = "downvoted:"
	GroupPart     = "group:"
	RecordPart    = "groups:"
	TrimmedPart   = "trimmed:"
	LivePart      = "live:"
	SizesPart     = "groupsizes:"
	PostsPart     = "posts:"
	KarmaPart     = "karma:"
	LinksPart     = "links:"
	SharesPart    = "linkshares:"
	HistoryPart   = "history:"
	PendingPart   = "deleted:"
	ReindexPart   = "reindex:"
	IndexedPart   = "indexed:"
	SettingsPart  = "settings:"
	ProgressPart  = "progress:"
	BuilderPart   = "builder:"
)

// Keys names the keys of one namespace, with its prefix in front of each.
// The keys and key prefixes that do not depend on an id or a name are
// joined once, since joining strings allocates.
type Keys struct {
	prefix                                                                               string
	article, score, time, voted, downvoted, group, record, trimmed, live, sizes, history string
	pendingVoted, pendingDownvoted, reindex, indexed, posts, settings, progress, builder string
	indexes                                                                              [len(Orders)]string
	// whole are the keys the kinds of index keep whole (Index.Parts), by
	// their parts.
	whole map[string]string
}

// NewKeys names the keys of the namespace of prefix.
func NewKeys(prefix string) Keys {
	k := Keys{
		prefix:    prefix,
		article:   prefix + ArticlePart,
		voted:     prefix + VotedPart,
		downvoted: prefix + DownvotedPart,
		group:     prefix + GroupPart,
		record:    prefix + RecordPart,
		trimmed:   prefix + TrimmedPart,
		live:      prefix + LivePart,
		sizes:     prefix + SizesPart,
		posts:     prefix + PostsPart,
		history:   prefix + HistoryPart,
		reindex:   prefix + ReindexPart,
		indexed:   prefix + IndexedPart,
		settings:  prefix + SettingsPart,
		progress:  prefix + ProgressPart,
		builder:   prefix + BuilderPart,

		pendingVoted:     prefix + PendingPart + VotedPart,
		pendingDownvoted: prefix + PendingPart + DownvotedPart,
	}
	for i, spec := range Orders {
		k.indexes[i] = prefix + spec.Key
	}
	k.score, k.time = k.indexes[ByScore], k.indexes[ByTime]
	k.whole = map[string]string{}
	for _, ix := range Indexes {
		for _, part := range ix.Parts {
			k.whole[part.Key] = prefix + part.Key
		}
	}
	return k
}

// Prefix is the namespace's prefix.
func (k Keys) Prefix() string { return k.prefix }

// counter is the string INCR'd for new article ids.
func (k Keys) Counter() string { return k.article }

// articleHash is the hash of one article. It is also the article's member
// name in every index and group, as in the book.
func (k Keys) ArticleHash(id string) string { return k.article + id }

// articlePrefix is articleHash without the id, for scripts that make the id.
func (k Keys) ArticlePrefix() string { return k.article }

// votedPrefix and downvotedPrefix are voted and downvoted without the id,
// for scripts that make the id.
func (k Keys) VotedPrefix() string     { return k.voted }
func (k Keys) DownvotedPrefix() string { return k.downvoted }

func (k Keys) ScoreIndex() string { return k.score }
func (k Keys) TimeIndex() string  { return k.time }

// index is the zset that lists articles in the given order.
func (k Keys) Index(o int) string { return k.indexes[o] }

// trimmedHash is the hash of the top-of-window indexes' marks.
func (k Keys) TrimmedHash() string { return k.trimmed }

func (k Keys) VotedSet(id string) string     { return k.voted + id }
func (k Keys) DownvotedSet(id string) string { return k.downvoted + id }
func (k Keys) GroupSet(name string) string   { return k.group + name }

// userHistory is the sorted set of a user's votes (WithUserHistory):
// members "up:article:7" and "down:article:7", each scored with the time of
// the vote. historyPrefix is its name without the user.
func (k Keys) UserHistory(user string) string { return k.history + user }
func (k Keys) HistoryPrefix() string          { return k.history }

// groupSizes is the sorted set of the namespace's groups that hold an
// article, each scored with its number of articles.
func (k Keys) GroupSizes() string { return k.sizes }

// userPosts is the sorted set of a user's articles by posting time;
// postsPrefix is its name without the user.
func (k Keys) UserPosts(user string) string { return k.posts + user }
func (k Keys) PostsPrefix() string          { return k.posts }

// Whole is the key a kind of index keeps whole (Index.Parts) whose name
// after the prefix is part: Whole(KarmaPart) is the sorted set of the
// posters' karma.
func (k Keys) Whole(part string) string { return k.whole[part] }

// pendingVotedSet and pendingDownvotedSet are a deleted article's voter
// sets, renamed, while DeleteArticle clears their histories.
func (k Keys) PendingVotedSet(id string) string     { return k.pendingVoted + id }
func (k Keys) PendingDownvotedSet(id string) string { return k.pendingDownvoted + id }

// reindexProgress is the hash of where an unfinished Reindex goes on from.
func (k Keys) ReindexProgress() string { return k.reindex }

// Progress is the hash of where the unfinished walks of Rescore and
// StopKeeping go on from.
func (k Keys) Progress() string { return k.progress }

// Builder is the lease of the Store that builds the namespace's unbuilt
// indexes in the background: its token, expiring unless renewed.
func (k Keys) Builder() string { return k.builder }

// indexedHash is the hash of which indexes hold every article (internal/schema/marks.go).
func (k Keys) IndexedHash() string { return k.indexed }

// Settings is the hash of the namespace's settings: what it stores, for
// every Store that writes it (settings.go).
func (k Keys) Settings() string { return k.settings }

// groupRecord is the set of the names of the groups an article is in (no
// key for none); recordPrefix is its name without the id, for scripts that
// make the id.
func (k Keys) GroupRecord(id string) string { return k.record + id }
func (k Keys) RecordPrefix() string         { return k.record }

// groupCache is the book's cached intersection of a group with an index:
// score:<name>, time:<name>, top-week:<name> and so on.
func (k Keys) GroupCache(name string, o int) string { return k.Index(o) + name }

// liveIndex is a group's live index of an order (WithLiveGroups):
// live:score:<name>, live:top-week:<name> and so on. livePrefix is its name
// before the order's key and the group's name, for the vote script, which
// makes the names of an article's groups' indexes from its record.
func (k Keys) LiveIndex(name string, o int) string { return k.live + Orders[o].Key + name }
func (k Keys) LivePrefix() string                  { return k.live }

// A Family is one family of keys of a namespace, as the key schema writes
// it. Key is its name after the prefix, with a placeholder for each part
// that varies: <id> an article's or a comment's id, <name> a group's name,
// <user> a user id, <kind> a kind of the comments' indexes
// (CommentKinds), <index> the key of an order's index (Orders[i].Key).
// Type is its Redis type: string, hash, set or zset.
type Family struct {
	Key, Type string
}

// Families are the families of keys of a namespace, every key any Store
// writes among them: the key schema that the voting package's doc.go
// and keys.go write out, and that its tests hold them and the keys the
// Store names to.
var Families = func() []Family {
	families := []Family{
		{ArticlePart, "string"},
		{ArticlePart + "<id>", "hash"},
	}
	for _, spec := range Orders {
		families = append(families, Family{spec.Key, "zset"})
	}
	families = append(families,
		Family{VotedPart + "<id>", "set"},
		Family{DownvotedPart + "<id>", "set"},
		Family{GroupPart + "<name>", "set"},
		Family{RecordPart + "<id>", "set"},
		Family{PostsPart + "<user>", "zset"},
		Family{"<index><name>", "zset"}, // a group's cached listing of an order
		Family{LivePart + "<index><name>", "zset"},
		Family{TrimmedPart, "hash"},
		Family{ReindexPart, "hash"},
		Family{IndexedPart, "hash"},
		Family{SettingsPart, "hash"},
		Family{ProgressPart, "hash"},
		Family{BuilderPart, "string"},
		Family{HistoryPart + "<user>", "zset"},
		Family{PendingPart + VotedPart + "<id>", "set"},
		Family{PendingPart + DownvotedPart + "<id>", "set"},
		Family{CommentPart, "string"},
		Family{CommentPart + "<id>", "hash"},
		Family{CommentVotedPart + "<id>", "set"},
		Family{CommentDownvotedPart + "<id>", "set"},
		Family{RepliesPart + "<kind>:" + ArticleParent + "<id>", "zset"},
		Family{RepliesPart + "<kind>:" + CommentParent + "<id>", "zset"},
		Family{ThreadPart + "<id>", "zset"},
		Family{UserCommentsPart + "<user>", "zset"},
	)
	for _, ix := range Indexes {
		families = append(families, ix.Parts...)
	}
	return families
}()
