package script

// ReindexGroup are reindex_group.lua's KEYS and ARGV: its header, and the
// comment under it, say what each is.
type ReindexGroup struct {
	Group    string   `lua:"group"`
	ByScore  string   `lua:"byScore"`
	ByTime   string   `lua:"byTime"`
	Trimmed  string   `lua:"trimmed"`
	Sizes    string   `lua:"sizes"`
	Progress string   `lua:"progress"`
	Indexes  []string `lua:"orders[].index"`

	Run           string  `lua:"run"`
	Name          string  `lua:"name"`
	ScanCount     int     `lua:"scanCount"`
	ArticlePrefix string  `lua:"articlePrefix"`
	RecordPrefix  string  `lua:"recordPrefix"`
	LivePrefix    string  `lua:"livePrefix"`
	Orders        []Order `lua:"orders"`
}

// Call is the run of reindex_group.lua with these arguments.
func (r *ReindexGroup) Call() Call {
	keys := append([]string{r.Group, r.ByScore, r.ByTime, r.Trimmed, r.Sizes, r.Progress}, r.Indexes...)
	args := []any{r.Run, r.Name, r.ScanCount, r.ArticlePrefix, r.RecordPrefix, r.LivePrefix}
	args = appendOrders(args, r.Orders, "key", "window", "cut")
	return Call{Script: reindexGroup, Keys: keys, Args: args}
}
