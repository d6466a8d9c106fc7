package script

// After are after.lua's KEYS and ARGV: its header, and the comment under
// it, say what each is.
type After struct {
	Index string `lua:"index"`

	Score  string `lua:"score"`
	Member string `lua:"member"`
	Size   int    `lua:"size"`
}

// Call is the run of after.lua with these arguments.
func (a *After) Call() Call {
	return Call{Script: after, Keys: []string{a.Index}, Args: []any{a.Score, a.Member, a.Size}}
}
