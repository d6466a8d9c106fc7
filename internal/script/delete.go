package script

// Delete are delete.lua's KEYS and ARGV: its header, and the comment under
// it, say what each is.
type Delete struct {
	Hash             string   `lua:"hash"`
	ByScore          string   `lua:"byScore"`
	ByTime           string   `lua:"byTime"`
	Voted            string   `lua:"voted"`
	Downvoted        string   `lua:"downvoted"`
	Record           string   `lua:"record"`
	Sizes            string   `lua:"sizes"`
	Indexed          string   `lua:"indexed"`
	Config           string   `lua:"settings"`
	Indexes          []string `lua:"orders[].index"`
	PendingVoted     string   `lua:"pendingVoted"`     // sent with a HistoryPrefix
	PendingDownvoted string   `lua:"pendingDownvoted"` // sent with a HistoryPrefix

	Member        string  `lua:"member"`
	ID            string  `lua:"id"`
	Gen           string  `lua:"gen"`
	GroupPrefix   string  `lua:"groupPrefix"`
	CachePrefix   string  `lua:"cachePrefix"`
	LivePrefix    string  `lua:"livePrefix"`
	PostsPrefix   string  `lua:"postsPrefix"`
	HistoryPrefix string  `lua:"historyPrefix"`
	Batch         int     `lua:"batch"`
	Orders        []Order `lua:"orders"`
	Prefix        string  `lua:"prefix"`

	Kinds Kinds // the kinds of index kept that have hooks: the variant that runs
}

// Call is the run of delete.lua with these arguments.
func (d *Delete) Call() Call {
	keys := make([]string, 0, 11+len(d.Indexes))
	keys = append(keys, d.Hash, d.ByScore, d.ByTime, d.Voted, d.Downvoted, d.Record, d.Sizes, d.Indexed, d.Config)
	keys = append(keys, d.Indexes...)
	if d.HistoryPrefix != "" {
		keys = append(keys, d.PendingVoted, d.PendingDownvoted)
	}
	args := []any{d.Member, d.ID, d.Gen, d.GroupPrefix, d.CachePrefix, d.LivePrefix, d.PostsPrefix, d.HistoryPrefix, d.Batch}
	args = appendOrders(args, d.Orders, "key")
	args = append(args, d.Prefix)
	return Call{Script: deleteArticle.of(d.Kinds), Keys: keys, Args: args}
}
