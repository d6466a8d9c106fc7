package schema

// This file holds the comments' part of the schema: the orders a thread is
// read in, one table, and the keys of comments. A comment is another kind
// of votable item: a hash like an article's, voter sets like an article's,
// and under each parent (an article, or a comment) one sorted set of its
// children for each kind of value the orders read.

// A CommentOrderSpec is one row of the comment orders table.
type CommentOrderSpec struct {
	Name    string // the text form, for URLs and JSON: "best"
	Ident   string // the constant's name, for error messages
	Kind    Kind   // what the parent's index of this order holds
	Oldest  bool   // read from the lowest value up
	Aliases []string
}

// CommentOrders is the table of comment orders, indexed by the voting
// package's CommentOrder.
var CommentOrders = [...]CommentOrderSpec{
	{Ident: "CommentsByBest", Name: "best", Kind: KindBest},
	{Ident: "CommentsByTop", Name: "top", Kind: KindNet},
	{Ident: "CommentsByNew", Name: "new", Kind: KindTime},
	{Ident: "CommentsByOld", Name: "old", Kind: KindTime, Oldest: true},
	{Ident: "CommentsByControversy", Name: "controversial", Aliases: []string{"controversy"}, Kind: KindControversy},
}

// CommentKinds are the kinds of the parents' indexes of comments, each
// once: a post enters a comment in each, a vote moves it in those whose
// value moves, a deletion takes it out of each.
var CommentKinds = func() []Kind {
	var kinds []Kind
	for _, spec := range CommentOrders {
		if !containsKind(kinds, spec.Kind) {
			kinds = append(kinds, spec.Kind)
		}
	}
	return kinds
}()

func containsKind(kinds []Kind, k Kind) bool {
	for _, x := range kinds {
		if x == k {
			return true
		}
	}
	return false
}

// The key parts of comments.
const (
	CommentPart          = "comment:"        // the counter, and comment:<id>, a comment's hash
	CommentVotedPart     = "comment-up:"     // comment-up:<id>, a comment's up-voters
	CommentDownvotedPart = "comment-down:"   // comment-down:<id>, its down-voters
	RepliesPart          = "replies:"        // replies:<kind>:<parent>, a parent's children
	ThreadPart           = "thread:"         // thread:<article id>, every comment of an article by time
	UserCommentsPart     = "usercomments:"   // usercomments:<user>, a user's comments by time
	CommentKarmaPart     = "karma-comments:" // with WithKarma, the commenters' karma
)

// CommentKarma is the sorted set of the commenters' karma (WithKarma).
func (k Keys) CommentKarma() string { return k.prefix + CommentKarmaPart }

// CommentCounter is the string INCR'd for new comment ids.
func (k Keys) CommentCounter() string { return k.prefix + CommentPart }

// CommentHash is a comment's hash, and its member in every index.
func (k Keys) CommentHash(id string) string { return k.prefix + CommentPart + id }

// CommentPrefix is CommentHash without the id, for scripts that make it.
func (k Keys) CommentPrefix() string { return k.prefix + CommentPart }

func (k Keys) CommentVoted(id string) string     { return k.prefix + CommentVotedPart + id }
func (k Keys) CommentDownvoted(id string) string { return k.prefix + CommentDownvotedPart + id }
func (k Keys) CommentVotedPrefix() string        { return k.prefix + CommentVotedPart }
func (k Keys) CommentDownvotedPrefix() string    { return k.prefix + CommentDownvotedPart }

// Replies is the index of kind of parent's children; parent is the
// parent's name in the names of its indexes: "a:7" for article 7, "c:12"
// for comment 12 (ParentName). (Not "article:7": a prefix ending in
// "replies:best:" would then name a key of the shorter one.)
func (k Keys) Replies(kind Kind, parent string) string {
	return k.prefix + RepliesPart + string(kind) + ":" + parent
}

// ParentName is the name of a parent in the names of its indexes: the
// article's, or with a parent comment id the comment's.
func ParentName(articleID, parentID string) string {
	if parentID != "" {
		return CommentParent + parentID
	}
	return ArticleParent + articleID
}

// ArticleParent and CommentParent start a parent's name (ParentName).
const (
	ArticleParent = "a:"
	CommentParent = "c:"
)

// RepliesPrefix is Replies without the kind and the parent, for scripts
// that make them: RepliesPrefix() + kind + ":" + parent.
func (k Keys) RepliesPrefix() string { return k.prefix + RepliesPart }

// Thread is the sorted set of every comment of an article, by posting
// time: what deleting the article takes away, a batch at a time.
func (k Keys) Thread(articleID string) string { return k.prefix + ThreadPart + articleID }

// ThreadPrefix is Thread without the article's id.
func (k Keys) ThreadPrefix() string { return k.prefix + ThreadPart }

// UserComments is the sorted set of a user's comments by posting time.
func (k Keys) UserComments(user string) string { return k.prefix + UserCommentsPart + user }

// UserCommentsPrefix is UserComments without the user.
func (k Keys) UserCommentsPrefix() string { return k.prefix + UserCommentsPart }
