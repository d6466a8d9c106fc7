package script

// ClearHistory are clear_history.lua's KEYS and ARGV: its header, and the
// comment under it, say what each is.
type ClearHistory struct {
	PendingVoted     string `lua:"pendingVoted"`
	PendingDownvoted string `lua:"pendingDownvoted"`

	Member        string `lua:"member"`
	HistoryPrefix string `lua:"historyPrefix"`
	Batch         int    `lua:"batch"`
}

// Call is the run of clear_history.lua with these arguments.
func (c *ClearHistory) Call() Call {
	return Call{Script: clearHistory, Keys: []string{c.PendingVoted, c.PendingDownvoted},
		Args: []any{c.Member, c.HistoryPrefix, c.Batch}}
}
