package script

// GroupPage are group_page.lua's KEYS and ARGV: its header, and the comment
// under it, say what each is.
type GroupPage struct {
	Cache   string `lua:"cache"`
	Group   string `lua:"group"`
	Index   string `lua:"index"`
	ByTime  string `lua:"byTime"`
	Trimmed string `lua:"trimmed"`
	Indexed string `lua:"indexed"`

	TTLMillis   int64  `lua:"ttlMillis"`
	Start       int64  `lua:"start"`
	Stop        any    `lua:"stop"` // a number, or "" for the size
	Field       string `lua:"field"`
	Cut         string `lua:"cut"`
	Batch       int    `lua:"batch"`
	Built       string `lua:"built"`
	Cursor      string `lua:"cursor"`
	AfterValue  string `lua:"afterValue"`
	AfterMember string `lua:"afterMember"`
}

// Call is the run of group_page.lua with these arguments.
func (g *GroupPage) Call() Call {
	return Call{Script: groupPage, Keys: []string{g.Cache, g.Group, g.Index, g.ByTime, g.Trimmed, g.Indexed},
		Args: []any{g.TTLMillis, g.Start, g.Stop, g.Field, g.Cut, g.Batch, g.Built, g.Cursor, g.AfterValue, g.AfterMember}}
}
