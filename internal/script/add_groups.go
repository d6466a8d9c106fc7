package script

// AddGroups are add_groups.lua's KEYS and ARGV: its header, and the comment
// under it, say what each is.
type AddGroups struct {
	Hash    string   `lua:"hash"`
	ByScore string   `lua:"byScore"`
	Record  string   `lua:"record"`
	Trimmed string   `lua:"trimmed"`
	Sizes   string   `lua:"sizes"`
	Indexed string   `lua:"indexed"`
	Config  string   `lua:"settings"`
	Indexes []string `lua:"orders[].index"`

	Member      string   `lua:"member"`
	Gen         string   `lua:"gen"`
	GroupPrefix string   `lua:"groupPrefix"`
	LivePrefix  string   `lua:"livePrefix"`
	MaxGroups   int      `lua:"maxGroups"`
	Orders      []Order  `lua:"orders"`
	Groups      []string `lua:"groups"`
	Unbuilt     *Names   `lua:"unbuilt"`
}

// Call is the run of add_groups.lua with these arguments.
func (a *AddGroups) Call() Call {
	keys := append([]string{a.Hash, a.ByScore, a.Record, a.Trimmed, a.Sizes, a.Indexed, a.Config}, a.Indexes...)
	args := []any{a.Member, a.Gen, a.GroupPrefix, a.LivePrefix, a.MaxGroups}
	args = appendOrders(args, a.Orders, "key", "window", "cut")
	args = appendNames(args, a.Groups)
	args = appendList(args, a.Unbuilt)
	return Call{Script: addGroups, Keys: keys, Args: args}
}
