package script

// Vote are vote.lua's KEYS and ARGV: its header, and the comment under it,
// say what each is. The arguments after the vote's own are the same for
// every vote of a Store: VoteSettings, made once.
type Vote struct {
	Hash      string   `lua:"hash"`
	ByScore   string   `lua:"byScore"`
	Voted     string   `lua:"voted"`
	Downvoted string   `lua:"downvoted"`
	Config    string   `lua:"settings"`
	Indexes   []string `lua:"orders[].index"`
	Record    string   `lua:"record"`  // sent with a LivePrefix
	History   string   `lua:"history"` // sent with HistoryMillis above 0

	Member   string `lua:"member"`
	User     string `lua:"user"`
	Dir      any    `lua:"dir"`
	NowText  string `lua:"nowText"`
	Settings *VoteSettings
}

// VoteSettings are vote.lua's arguments after the vote's own, the same for
// every vote of a Store; Args makes them once, since putting a string in
// an interface allocates.
type VoteSettings struct {
	Gen           string  `lua:"gen"`
	Prefix        string  `lua:"prefix"`
	Cutoff        string  `lua:"cutoff"`
	HistoryMillis int64   `lua:"historyMillis"`
	LivePrefix    string  `lua:"livePrefix"`
	MinusTwo      string  `lua:"minusTwo"`
	MinusOne      string  `lua:"minusOne"`
	PlusOne       string  `lua:"plusOne"`
	PlusTwo       string  `lua:"plusTwo"`
	Orders        []Order `lua:"orders"`

	Kinds Kinds // the kinds of index kept that have hooks: the variant that runs
	args  []any
}

// Args are the settings as vote.lua takes them, made on the first call.
// Make them before the VoteSettings are shared.
func (s *VoteSettings) Args() []any {
	if s.args == nil {
		args := []any{s.Gen, s.Prefix, s.Cutoff, s.HistoryMillis, s.LivePrefix, s.MinusTwo, s.MinusOne, s.PlusOne, s.PlusTwo}
		s.args = appendOrders(args, s.Orders, "key", "kind")
	}
	return s.args
}

// Call is the run of vote.lua with these arguments.
func (v *Vote) Call() Call {
	s := v.Settings
	keys := make([]string, 0, 7+len(v.Indexes))
	keys = append(append(keys, v.Hash, v.ByScore, v.Voted, v.Downvoted, v.Config), v.Indexes...)
	if s.LivePrefix != "" {
		keys = append(keys, v.Record)
	}
	if s.HistoryMillis > 0 {
		keys = append(keys, v.History)
	}
	settings := s.Args()
	args := make([]any, 0, 4+len(settings))
	args = append(append(args, v.Member, v.User, v.Dir, v.NowText), settings...)
	return Call{Script: vote.of(s.Kinds), Keys: keys, Args: args}
}
