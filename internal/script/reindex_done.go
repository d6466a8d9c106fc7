package script

// ReindexDone are reindex_done.lua's KEYS and ARGV: its header, and the
// comment under it, say what each is.
type ReindexDone struct {
	Progress string `lua:"progress"`
	Indexed  string `lua:"indexed"`

	Run   string   `lua:"run"`
	Token string   `lua:"token"`
	Built []string `lua:"built"`
}

// Call is the run of reindex_done.lua with these arguments.
func (r *ReindexDone) Call() Call {
	return Call{Script: reindexDone, Keys: []string{r.Progress, r.Indexed}, Args: appendNames([]any{r.Run, r.Token}, r.Built)}
}
