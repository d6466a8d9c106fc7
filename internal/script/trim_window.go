package script

// TrimWindow are trim_window.lua's KEYS and ARGV: its header, and the
// comment under it, say what each is.
type TrimWindow struct {
	Window   string `lua:"window"`
	ByTime   string `lua:"byTime"`
	Trimmed  string `lua:"trimmed"`
	Indexed  string `lua:"indexed"`
	Articles string `lua:"articles"`

	Field string `lua:"field"`
	Cut   string `lua:"cut"`
	Batch int    `lua:"batch"`
	Built string `lua:"built"`
}

// Call is the run of trim_window.lua with these arguments.
func (t *TrimWindow) Call() Call {
	return Call{Script: trimWindow, Keys: []string{t.Window, t.ByTime, t.Trimmed, t.Indexed, t.Articles},
		Args: []any{t.Field, t.Cut, t.Batch, t.Built}}
}
