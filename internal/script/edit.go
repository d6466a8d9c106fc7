package script

// Edit are edit.lua's KEYS and ARGV: its header, and the comment under it,
// say what each is.
type Edit struct {
	Hash    string `lua:"hash"`
	ByScore string `lua:"byScore"`
	Indexed string `lua:"indexed"`

	Member string `lua:"member"`
	ID     string `lua:"id"`
	Texts  []Text `lua:"texts"`
	Link   string `lua:"link"`
	Prefix string `lua:"prefix"`
	Kinds  *Names `lua:"kinds"`
}

// Call is the run of edit.lua with these arguments.
func (e *Edit) Call() Call {
	args := appendTexts([]any{e.Member, e.ID}, e.Texts)
	return Call{Script: edit, Keys: []string{e.Hash, e.ByScore, e.Indexed},
		Args: appendList(append(args, e.Link, e.Prefix), e.Kinds)}
}
