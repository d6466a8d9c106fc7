package script

// ReindexScan are reindex_scan.lua's KEYS and ARGV: its header, and the
// comment under it, say what each is.
type ReindexScan struct {
	Progress string `lua:"progress"`

	Run  string `lua:"run"`
	Scan string `lua:"scan"`
}

// Call is the run of reindex_scan.lua with these arguments.
func (r *ReindexScan) Call() Call {
	return Call{Script: reindexScan, Keys: []string{r.Progress}, Args: []any{r.Run, r.Scan}}
}
