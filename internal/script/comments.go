package script

// This file holds the arguments of the comments' scripts: each struct
// names its script's header entries in order (the header, and the comment
// under it, say what each is).

// CommentPost are comment_post.lua's KEYS and ARGV.
type CommentPost struct {
	Counter string `lua:"counter"`
	Article string `lua:"article"`
	ByScore string `lua:"byScore"`
	Config  string `lua:"settings"`
	Thread  string `lua:"thread"`
	Posts   string `lua:"posts"`
	Parent  string `lua:"parent"` // sent with a ParentID
	Karma   string `lua:"karma"`  // sent with KarmaKept

	Gen           string   `lua:"gen"`
	ArticleMember string   `lua:"articleMember"`
	ArticleID     string   `lua:"articleID"`
	ParentID      string   `lua:"parentID"`
	CommentPrefix string   `lua:"commentPrefix"`
	VotedPrefix   string   `lua:"votedPrefix"`
	RepliesPrefix string   `lua:"repliesPrefix"`
	Poster        string   `lua:"poster"`
	Body          string   `lua:"body"`
	Posted        string   `lua:"posted"`
	CutoffMillis  int64    `lua:"cutoffMillis"`
	MaxDepth      int      `lua:"maxDepth"`
	KarmaKept     bool     `lua:"karmaKept"`
	Kinds         []string `lua:"kinds"`
}

// Call is the run of comment_post.lua with these arguments.
func (p *CommentPost) Call() Call {
	keys := []string{p.Counter, p.Article, p.ByScore, p.Config, p.Thread, p.Posts}
	if p.ParentID != "" {
		keys = append(keys, p.Parent)
	}
	if p.KarmaKept {
		keys = append(keys, p.Karma)
	}
	args := []any{p.Gen, p.ArticleMember, p.ArticleID, p.ParentID, p.CommentPrefix, p.VotedPrefix, p.RepliesPrefix,
		p.Poster, p.Body, p.Posted, p.CutoffMillis, p.MaxDepth, Flag(p.KarmaKept)}
	return Call{Script: commentPost, Keys: keys, Args: appendNames(args, p.Kinds)}
}

// CommentVote are comment_vote.lua's KEYS and ARGV.
type CommentVote struct {
	Hash      string `lua:"hash"`
	Voted     string `lua:"voted"`
	Downvoted string `lua:"downvoted"`
	Config    string `lua:"settings"`
	Karma     string `lua:"karma"` // sent with KarmaKept

	Member        string   `lua:"member"`
	User          string   `lua:"user"`
	Dir           any      `lua:"dir"`
	NowText       string   `lua:"nowText"`
	Gen           string   `lua:"gen"`
	Cutoff        string   `lua:"cutoff"`
	RepliesPrefix string   `lua:"repliesPrefix"`
	KarmaKept     bool     `lua:"karmaKept"`
	Kinds         []string `lua:"kinds"`
}

// Call is the run of comment_vote.lua with these arguments.
func (v *CommentVote) Call() Call {
	keys := []string{v.Hash, v.Voted, v.Downvoted, v.Config}
	if v.KarmaKept {
		keys = append(keys, v.Karma)
	}
	args := []any{v.Member, v.User, v.Dir, v.NowText, v.Gen, v.Cutoff, v.RepliesPrefix, Flag(v.KarmaKept)}
	return Call{Script: commentVote, Keys: keys, Args: appendNames(args, v.Kinds)}
}

// CommentDelete are comment_delete.lua's KEYS and ARGV.
type CommentDelete struct {
	Hash      string `lua:"hash"`
	Voted     string `lua:"voted"`
	Downvoted string `lua:"downvoted"`
	Config    string `lua:"settings"`
	Karma     string `lua:"karma"` // sent with KarmaKept

	Gen             string   `lua:"gen"`
	Member          string   `lua:"member"`
	CommentPrefix   string   `lua:"commentPrefix"`
	VotedPrefix     string   `lua:"votedPrefix"`
	DownvotedPrefix string   `lua:"downvotedPrefix"`
	RepliesPrefix   string   `lua:"repliesPrefix"`
	ArticlePrefix   string   `lua:"articlePrefix"`
	ThreadPrefix    string   `lua:"threadPrefix"`
	PostsPrefix     string   `lua:"postsPrefix"`
	MaxClimb        int      `lua:"maxClimb"`
	KarmaKept       bool     `lua:"karmaKept"`
	Kinds           []string `lua:"kinds"`
}

// Call is the run of comment_delete.lua with these arguments.
func (d *CommentDelete) Call() Call {
	keys := []string{d.Hash, d.Voted, d.Downvoted, d.Config}
	if d.KarmaKept {
		keys = append(keys, d.Karma)
	}
	args := []any{d.Gen, d.Member, d.CommentPrefix, d.VotedPrefix, d.DownvotedPrefix, d.RepliesPrefix, d.ArticlePrefix,
		d.ThreadPrefix, d.PostsPrefix, d.MaxClimb, Flag(d.KarmaKept)}
	return Call{Script: commentDelete, Keys: keys, Args: appendNames(args, d.Kinds)}
}

// CommentEdit are comment_edit.lua's KEYS and ARGV.
type CommentEdit struct {
	Hash string `lua:"hash"`
	Body string `lua:"body"`
}

// Call is the run of comment_edit.lua with these arguments.
func (e *CommentEdit) Call() Call {
	return Call{Script: commentEdit, Keys: []string{e.Hash}, Args: []any{e.Body}}
}

// CommentPurge are comment_purge.lua's KEYS and ARGV.
type CommentPurge struct {
	Thread string `lua:"thread"`
	Config string `lua:"settings"`
	Karma  string `lua:"karma"` // sent with KarmaKept

	Gen             string   `lua:"gen"`
	ArticleName     string   `lua:"articleName"`
	CommentPrefix   string   `lua:"commentPrefix"`
	VotedPrefix     string   `lua:"votedPrefix"`
	DownvotedPrefix string   `lua:"downvotedPrefix"`
	RepliesPrefix   string   `lua:"repliesPrefix"`
	PostsPrefix     string   `lua:"postsPrefix"`
	Batch           int      `lua:"batch"`
	KarmaKept       bool     `lua:"karmaKept"`
	Kinds           []string `lua:"kinds"`
}

// Call is the run of comment_purge.lua with these arguments.
func (p *CommentPurge) Call() Call {
	keys := []string{p.Thread, p.Config}
	if p.KarmaKept {
		keys = append(keys, p.Karma)
	}
	args := []any{p.Gen, p.ArticleName, p.CommentPrefix, p.VotedPrefix, p.DownvotedPrefix, p.RepliesPrefix, p.PostsPrefix,
		p.Batch, Flag(p.KarmaKept)}
	return Call{Script: commentPurge, Keys: keys, Args: appendNames(args, p.Kinds)}
}

// CommentAfter are comment_after.lua's KEYS and ARGV.
type CommentAfter struct {
	Index string `lua:"index"`

	Score  string `lua:"score"`
	Member string `lua:"member"`
	Size   int    `lua:"size"`
}

// Call is the run of comment_after.lua with these arguments.
func (a *CommentAfter) Call() Call {
	return Call{Script: commentAfter, Keys: []string{a.Index}, Args: []any{a.Score, a.Member, a.Size}}
}
