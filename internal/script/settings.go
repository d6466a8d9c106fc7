package script

// Settings are settings.lua's KEYS and ARGV: its header, and the comment
// under it, say what each is.
type Settings struct {
	Settings string `lua:"settings"`
	Indexed  string `lua:"indexed"`
	ByTime   string `lua:"byTime"`

	Gen          string   `lua:"gen"`
	Kinds        string   `lua:"kinds"`
	KindsIfEmpty string   `lua:"kindsIfEmpty"`
	Fields       []Text   `lua:"fields"`
	Unmark       []string `lua:"unmark"`
}

// Call is the run of settings.lua with these arguments.
func (s *Settings) Call() Call {
	args := appendTexts([]any{s.Gen, s.Kinds, s.KindsIfEmpty}, s.Fields)
	return Call{Script: settings, Keys: []string{s.Settings, s.Indexed, s.ByTime}, Args: appendNames(args, s.Unmark)}
}
