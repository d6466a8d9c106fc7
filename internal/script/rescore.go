package script

// Rescore are rescore.lua's KEYS and ARGV: its header, and the comment
// under it, say what each is.
type Rescore struct {
	ByTime   string `lua:"byTime"`
	ByScore  string `lua:"byScore"`
	Settings string `lua:"settings"`

	Gen             string `lua:"gen"`
	From            string `lua:"from"`
	Batch           int    `lua:"batch"`
	ArticlePrefix   string `lua:"articlePrefix"`
	RecordPrefix    string `lua:"recordPrefix"`
	LiveScorePrefix string `lua:"liveScorePrefix"`
	VotedPrefix     string `lua:"votedPrefix"`
	DownvotedPrefix string `lua:"downvotedPrefix"`
	Weight          string `lua:"weight"`
	CutoffMillis    int64  `lua:"cutoffMillis"`
	NowMillis       int64  `lua:"nowMillis"`
}

// Call is the run of rescore.lua with these arguments.
func (r *Rescore) Call() Call {
	return Call{Script: rescore, Keys: []string{r.ByTime, r.ByScore, r.Settings},
		Args: []any{r.Gen, r.From, r.Batch, r.ArticlePrefix, r.RecordPrefix, r.LiveScorePrefix, r.VotedPrefix, r.DownvotedPrefix,
			r.Weight, r.CutoffMillis, r.NowMillis}}
}
