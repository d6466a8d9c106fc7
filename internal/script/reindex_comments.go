package script

// ReindexComments are reindex_comments.lua's KEYS and ARGV: its header,
// and the comment under it, say what each is.
type ReindexComments struct {
	Progress string `lua:"progress"`
	Counter  string `lua:"counter"`
	Karma    string `lua:"karma"` // sent with KarmaKept

	Run             string   `lua:"run"`
	Batch           int      `lua:"batch"`
	CommentPrefix   string   `lua:"commentPrefix"`
	VotedPrefix     string   `lua:"votedPrefix"`
	DownvotedPrefix string   `lua:"downvotedPrefix"`
	RepliesPrefix   string   `lua:"repliesPrefix"`
	ArticlePrefix   string   `lua:"articlePrefix"`
	ThreadPrefix    string   `lua:"threadPrefix"`
	PostsPrefix     string   `lua:"postsPrefix"`
	KarmaKept       bool     `lua:"karmaKept"`
	Kinds           []string `lua:"kinds"`
}

// Call is the run of reindex_comments.lua with these arguments.
func (r *ReindexComments) Call() Call {
	keys := []string{r.Progress, r.Counter}
	if r.KarmaKept {
		keys = append(keys, r.Karma)
	}
	args := []any{r.Run, r.Batch, r.CommentPrefix, r.VotedPrefix, r.DownvotedPrefix, r.RepliesPrefix, r.ArticlePrefix,
		r.ThreadPrefix, r.PostsPrefix, Flag(r.KarmaKept)}
	return Call{Script: reindexComments, Keys: keys, Args: appendNames(args, r.Kinds)}
}
