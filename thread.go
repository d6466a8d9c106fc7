package voting

// This file holds Thread: the first screen of an article's discussion, a
// tree read one round trip a level.

import (
	"context"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"

	"github.com/gomodule/redigo/redis"
)

// ThreadQuery says how much of a thread Thread reads: the first Top
// comments on the article in Order, each with its first Replies replies,
// to Depth levels of replies. Zero fields take DefaultThreadReplies,
// DefaultThreadDepth and the Store's page size, or fewer top comments if
// the page size would let the tree pass MaxThreadNodes.
type ThreadQuery struct {
	Order   CommentOrder
	Top     int
	Replies int
	Depth   int
}

// A CommentNode is a comment of a thread with the replies read with it.
// More is how many of its replies were not read (Reddit's "load more
// comments"), to read with Comments and CommentQuery.Parent.
type CommentNode struct {
	Comment
	Children []CommentNode `json:"children"`
	More     int64         `json:"more"`
}

// check checks t and gives it with its defaults.
func (t ThreadQuery) check(pageSize int) (ThreadQuery, error) {
	if t.Replies == 0 {
		t.Replies = DefaultThreadReplies
	}
	if t.Depth == 0 {
		t.Depth = DefaultThreadDepth
	}
	if t.Top == 0 {
		// The page size, or as many as MaxThreadNodes leaves room for.
		per, level := 1, 1
		for range t.Depth {
			level *= max(t.Replies, 1)
			per += level
			if per > MaxThreadNodes {
				break
			}
		}
		t.Top = max(min(pageSize, MaxThreadNodes/per), 1)
	}
	switch {
	case t.Top < 0 || t.Top > MaxPageSize:
		return t, errs.Invalidf("a thread's top %d is outside 1..%d", t.Top, MaxPageSize)
	case t.Replies < 0 || t.Replies > MaxPageSize:
		return t, errs.Invalidf("a thread's replies %d are outside 1..%d", t.Replies, MaxPageSize)
	case t.Depth < 0 || t.Depth > MaxThreadDepth:
		return t, errs.Invalidf("a thread's depth %d is outside 1..%d", t.Depth, MaxThreadDepth)
	}
	if _, err := t.Order.spec(); err != nil {
		return t, err
	}
	nodes, level := t.Top, t.Top
	for range t.Depth {
		level *= t.Replies
		nodes += level
		if nodes > MaxThreadNodes {
			return t, errs.Invalidf("a thread of top %d, %d replies and depth %d could hold more than %d comments (MaxThreadNodes)",
				t.Top, t.Replies, t.Depth, MaxThreadNodes)
		}
	}
	return t, nil
}

// Thread returns the first screen of an article's discussion as a tree:
// its first t.Top comments in t.Order, each with its first t.Replies
// replies in the same order, to t.Depth levels, each node with the count
// of its replies not read, and the count of the article's comments on it
// that were not read. It takes at most t.Depth + 2 round trips (fewer when
// the tree ends sooner), whatever the thread's size. It returns an error wrapping ErrNotFound for no such
// article.
func (s *Store) Thread(ctx context.Context, articleID string, t ThreadQuery) (nodes []CommentNode, more int64, err error) {
	defer func() {
		if err != nil {
			err = failed(err, "thread of article "+idText(articleID))
		}
	}()
	if err := checkID(articleID); err != nil {
		return nil, 0, err
	}
	if t, err = t.check(s.pageSize); err != nil {
		return nil, 0, err
	}
	spec, _ := t.Order.spec()
	rangeCmd := func(parent string, n int) rconn.Command {
		name := "ZREVRANGE"
		if spec.Oldest {
			name = "ZRANGE"
		}
		return rconn.Command{Name: name, Args: []any{s.keys.Replies(spec.Kind, parent), 0, n - 1}}
	}
	err = s.rc.Session(ctx, func(c rconn.Link) error {
		top := schema.ParentName(articleID, "")
		check := s.ownerCheck(articleID, "")
		cmds := []rconn.Command{check.cmd, rangeCmd(top, t.Top), {Name: "ZCARD", Args: []any{s.keys.Replies(spec.Kind, top)}}}
		replies, err := c.CheckedPipeline(cmds)
		if err != nil {
			return err
		}
		if err := check.check(replies[0]); err != nil {
			return err
		}
		ids, err := redis.Values(replies[1], nil)
		if err != nil {
			return err
		}
		total, err := redis.Int64(replies[2], nil)
		if err != nil {
			return err
		}
		more = max(total-int64(len(ids)), 0)
		// Each level: the hashes of its comments, and the first replies of
		// each, in one round trip. A slot is the list of a node's children
		// to fill (the thread's own first), and their members.
		type slot struct {
			into    *[]CommentNode
			members []any
		}
		nodes = []CommentNode{}
		slots := []slot{{&nodes, ids}}
		for depth := 0; len(slots) > 0; depth++ {
			read := depth < t.Depth
			var cmds []rconn.Command
			for _, sl := range slots {
				for _, m := range sl.members {
					cmds = append(cmds, s.hmget(m))
					if read {
						cmds = append(cmds, rangeCmd(schema.ParentName("", s.commentID(m)), t.Replies))
					}
				}
			}
			if len(cmds) == 0 {
				break // no comment on the article
			}
			replies, err := c.CheckedPipeline(cmds)
			if err != nil {
				return err
			}
			var next []slot
			for _, sl := range slots {
				list := make([]CommentNode, 0, len(sl.members))
				var childrenOf [][]any
				for _, m := range sl.members {
					cm, ok, err := parseComment(s.commentID(m), replies[0])
					if err != nil {
						return err
					}
					var children []any
					if read {
						if children, err = redis.Values(replies[1], nil); err != nil {
							return err
						}
						replies = replies[2:]
					} else {
						replies = replies[1:]
					}
					if ok {
						list = append(list, CommentNode{Comment: cm, Children: []CommentNode{}, More: max(cm.Replies-int64(len(children)), 0)})
						childrenOf = append(childrenOf, children)
					}
				}
				*sl.into = list
				for i := range list {
					if len(childrenOf[i]) > 0 {
						next = append(next, slot{&list[i].Children, childrenOf[i]})
					}
				}
			}
			slots = next
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return nodes, more, nil
}
