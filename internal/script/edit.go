package script

// Edit are edit.lua's KEYS and ARGV: its header, and the comment under it,
// say what each is.
type Edit struct {
	Hash    string `lua:"hash"`
	ByScore string `lua:"byScore"`
	Config  string `lua:"settings"`

	Member string `lua:"member"`
	ID     string `lua:"id"`
	Gen    string `lua:"gen"`
	Texts  []Text `lua:"texts"`
	Link   string `lua:"link"`
	Prefix string `lua:"prefix"`

	Kinds Kinds // the kinds of index kept that have hooks: the variant that runs
}

// Call is the run of edit.lua with these arguments.
func (e *Edit) Call() Call {
	args := appendTexts([]any{e.Member, e.ID, e.Gen}, e.Texts)
	return Call{Script: edit.of(e.Kinds), Keys: []string{e.Hash, e.ByScore, e.Config}, Args: append(args, e.Link, e.Prefix)}
}
