package script

// Edit are edit.lua's KEYS and ARGV: its header, and the comment under it,
// say what each is.
type Edit struct {
	Hash    string `lua:"hash"`
	ByScore string `lua:"byScore"`
	Links   string `lua:"links"`
	Shared  string `lua:"shared"`
	Indexed string `lua:"indexed"`

	Member string `lua:"member"`
	ID     string `lua:"id"`
	Title  string `lua:"title"`
	Link   string `lua:"link"`
	Unique bool   `lua:"unique"`
}

// Call is the run of edit.lua with these arguments.
func (e *Edit) Call() Call {
	return Call{Script: edit, Keys: []string{e.Hash, e.ByScore, e.Links, e.Shared, e.Indexed},
		Args: []any{e.Member, e.ID, e.Title, e.Link, Flag(e.Unique)}}
}
