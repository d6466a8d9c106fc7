package script

// Post are post.lua's KEYS and ARGV: its header, and the comment under it,
// say what each is.
type Post struct {
	Counter string   `lua:"counter"`
	Trimmed string   `lua:"trimmed"`
	Sizes   string   `lua:"sizes"`
	Indexed string   `lua:"indexed"`
	Posts   string   `lua:"posts"`
	Config  string   `lua:"settings"`
	Indexes []string `lua:"orders[].index"`
	History string   `lua:"history"` // sent with HistoryMillis above 0

	Gen             string   `lua:"gen"`
	Prefix          string   `lua:"prefix"`
	ArticlePrefix   string   `lua:"articlePrefix"`
	VotedPrefix     string   `lua:"votedPrefix"`
	DownvotedPrefix string   `lua:"downvotedPrefix"`
	RecordPrefix    string   `lua:"recordPrefix"`
	GroupPrefix     string   `lua:"groupPrefix"`
	LivePrefix      string   `lua:"livePrefix"`
	Texts           []Text   `lua:"texts"`
	Link            string   `lua:"link"`
	Poster          string   `lua:"poster"`
	Posted          string   `lua:"posted"`
	Score           string   `lua:"score"`
	CutoffMillis    int64    `lua:"cutoffMillis"`
	HistoryMillis   int64    `lua:"historyMillis"`
	Orders          []Order  `lua:"orders"`
	Groups          []string `lua:"groups"`
	Built           *Names   `lua:"built"`
	Unbuilt         *Names   `lua:"unbuilt"`

	Kinds Kinds // the kinds of index kept that have hooks: the variant that runs
}

// Call is the run of post.lua with these arguments.
func (p *Post) Call() Call {
	keys := make([]string, 0, 7+len(p.Indexes))
	keys = append(append(keys, p.Counter, p.Trimmed, p.Sizes, p.Indexed, p.Posts, p.Config), p.Indexes...)
	if p.HistoryMillis > 0 {
		keys = append(keys, p.History)
	}
	args := make([]any, 0, 21+2*len(p.Texts)+4*len(p.Orders)+len(p.Groups)+len(p.Built.List())+len(p.Unbuilt.List()))
	args = append(args, p.Gen, p.Prefix, p.ArticlePrefix, p.VotedPrefix, p.DownvotedPrefix, p.RecordPrefix, p.GroupPrefix, p.LivePrefix)
	args = appendTexts(args, p.Texts)
	args = append(args, p.Link, p.Poster, p.Posted, p.Score, p.CutoffMillis, p.HistoryMillis)
	args = appendOrders(args, p.Orders, "key", "kind", "window", "cut")
	args = appendNames(args, p.Groups)
	args = appendList(args, p.Built)
	args = appendList(args, p.Unbuilt)
	return Call{Script: post.of(p.Kinds), Keys: keys, Args: args}
}
