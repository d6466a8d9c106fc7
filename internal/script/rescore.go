package script

// Rescore are rescore.lua's KEYS and ARGV: its header, and the comment
// under it, say what each is.
type Rescore struct {
	ByTime   string `lua:"byTime"`
	ByScore  string `lua:"byScore"`
	Settings string `lua:"settings"`
	Progress string `lua:"progress"`

	Gen             string `lua:"gen"`
	Run             string `lua:"run"`
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
	return Call{Script: rescore, Keys: []string{r.ByTime, r.ByScore, r.Settings, r.Progress},
		Args: []any{r.Gen, r.Run, r.From, r.Batch, r.ArticlePrefix, r.RecordPrefix, r.LiveScorePrefix, r.VotedPrefix, r.DownvotedPrefix,
			r.Weight, r.CutoffMillis, r.NowMillis}}
}

// RescoreComments are rescore_comments.lua's KEYS and ARGV: its header,
// and the comment under it, say what each is.
type RescoreComments struct {
	Settings string `lua:"settings"`
	Counter  string `lua:"counter"`
	Progress string `lua:"progress"`

	Gen             string `lua:"gen"`
	Run             string `lua:"run"`
	From            int64  `lua:"from"`
	Batch           int    `lua:"batch"`
	CommentPrefix   string `lua:"commentPrefix"`
	VotedPrefix     string `lua:"votedPrefix"`
	DownvotedPrefix string `lua:"downvotedPrefix"`
	CutoffMillis    int64  `lua:"cutoffMillis"`
	NowMillis       int64  `lua:"nowMillis"`
}

// Call is the run of rescore_comments.lua with these arguments.
func (r *RescoreComments) Call() Call {
	return Call{Script: rescoreComments, Keys: []string{r.Settings, r.Counter, r.Progress},
		Args: []any{r.Gen, r.Run, r.From, r.Batch, r.CommentPrefix, r.VotedPrefix, r.DownvotedPrefix, r.CutoffMillis, r.NowMillis}}
}
