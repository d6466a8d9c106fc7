package script

// ReindexStart are reindex_start.lua's KEYS and ARGV: its header, and the
// comment under it, say what each is.
type ReindexStart struct {
	Progress string `lua:"progress"`
	Indexed  string `lua:"indexed"`
	ByTime   string `lua:"byTime"`

	Run   string   `lua:"run"`
	Phase string   `lua:"phase"`
	Token string   `lua:"token"`
	Built []string `lua:"built"`
}

// Call is the run of reindex_start.lua with these arguments.
func (r *ReindexStart) Call() Call {
	return Call{Script: reindexStart, Keys: []string{r.Progress, r.Indexed, r.ByTime},
		Args: appendNames([]any{r.Run, r.Phase, r.Token}, r.Built)}
}
