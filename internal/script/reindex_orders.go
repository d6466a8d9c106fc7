package script

// ReindexOrders are reindex_orders.lua's KEYS and ARGV: its header, and the
// comment under it, say what each is.
type ReindexOrders struct {
	ByTime   string   `lua:"byTime"`
	ByScore  string   `lua:"byScore"`
	Trimmed  string   `lua:"trimmed"`
	Progress string   `lua:"progress"`
	Indexes  []string `lua:"orders[].index"`

	Run             string  `lua:"run"`
	Batch           int     `lua:"batch"`
	ArticlePrefix   string  `lua:"articlePrefix"`
	VotedPrefix     string  `lua:"votedPrefix"`
	DownvotedPrefix string  `lua:"downvotedPrefix"`
	PostsPrefix     string  `lua:"postsPrefix"`
	MaxDuplicates   int     `lua:"maxDuplicates"`
	Orders          []Order `lua:"orders"`
	Prefix          string  `lua:"prefix"`

	Kinds Kinds // the kinds of index kept that have hooks: the variant that runs
}

// Call is the run of reindex_orders.lua with these arguments.
func (r *ReindexOrders) Call() Call {
	keys := append([]string{r.ByTime, r.ByScore, r.Trimmed, r.Progress}, r.Indexes...)
	args := []any{r.Run, r.Batch, r.ArticlePrefix, r.VotedPrefix, r.DownvotedPrefix, r.PostsPrefix, r.MaxDuplicates}
	args = appendOrders(args, r.Orders, "kind", "window", "cut")
	args = append(args, r.Prefix)
	return Call{Script: reindexOrders.of(r.Kinds), Keys: keys, Args: args}
}
