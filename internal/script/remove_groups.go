package script

// RemoveGroups are remove_groups.lua's KEYS and ARGV: its header, and the
// comment under it, say what each is.
type RemoveGroups struct {
	Record string `lua:"record"`
	Sizes  string `lua:"sizes"`

	Member      string   `lua:"member"`
	GroupPrefix string   `lua:"groupPrefix"`
	CachePrefix string   `lua:"cachePrefix"`
	LivePrefix  string   `lua:"livePrefix"`
	Orders      []Order  `lua:"orders"`
	Groups      []string `lua:"groups"`
}

// Call is the run of remove_groups.lua with these arguments.
func (r *RemoveGroups) Call() Call {
	args := []any{r.Member, r.GroupPrefix, r.CachePrefix, r.LivePrefix}
	args = appendOrders(args, r.Orders, "key")
	args = appendNames(args, r.Groups)
	return Call{Script: removeGroups, Keys: []string{r.Record, r.Sizes}, Args: args}
}
