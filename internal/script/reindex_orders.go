package script

// ReindexOrders are reindex_orders.lua's KEYS and ARGV: its header, and the
// comment under it, say what each is.
type ReindexOrders struct {
	ByTime   string   `lua:"byTime"`
	ByScore  string   `lua:"byScore"`
	Trimmed  string   `lua:"trimmed"`
	Progress string   `lua:"progress"`
	Indexes  []string `lua:"orders[].index"`
	Karma    string   `lua:"karma"`  // sent with KeepKarma
	Links    string   `lua:"links"`  // sent with Unique
	Shared   string   `lua:"shared"` // sent with Unique

	Run             string  `lua:"run"`
	Batch           int     `lua:"batch"`
	ArticlePrefix   string  `lua:"articlePrefix"`
	VotedPrefix     string  `lua:"votedPrefix"`
	DownvotedPrefix string  `lua:"downvotedPrefix"`
	PostsPrefix     string  `lua:"postsPrefix"`
	KeepKarma       bool    `lua:"keepKarma"`
	Unique          bool    `lua:"unique"`
	MaxDuplicates   int     `lua:"maxDuplicates"`
	Orders          []Order `lua:"orders"`
}

// Call is the run of reindex_orders.lua with these arguments.
func (r *ReindexOrders) Call() Call {
	keys := append([]string{r.ByTime, r.ByScore, r.Trimmed, r.Progress}, r.Indexes...)
	if r.KeepKarma {
		keys = append(keys, r.Karma)
	}
	if r.Unique {
		keys = append(keys, r.Links, r.Shared)
	}
	args := []any{r.Run, r.Batch, r.ArticlePrefix, r.VotedPrefix, r.DownvotedPrefix, r.PostsPrefix, Flag(r.KeepKarma),
		Flag(r.Unique), r.MaxDuplicates}
	args = appendOrders(args, r.Orders, "kind", "window", "cut")
	return Call{Script: reindexOrders, Keys: keys, Args: args}
}
