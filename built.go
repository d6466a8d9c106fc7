package voting

// This file holds which indexes are built, a concept of its own: an index
// of an order beyond the book's two, or the groups' live indexes of an
// order, holds every article only if it has been kept since the namespace's
// first article or built by Reindex. The hash indexed: says which are
// built. A listing reads its index's field, and whether the namespace has
// an article, in the round trip that reads its page, and answers
// ErrNotIndexed for an index not built, rather than an empty or partial
// page.
//
// An empty namespace (its time index holds no article) has every index
// complete, marked or not, and a post into it marks every index its Store
// keeps as built. A run of Reindex marks the indexes it builds "0:<token>",
// with the run's own token, when it starts, and "1" when it completes,
// unless meanwhile a Store without one of them has posted or changed an
// article's groups (such a Store cannot write an index it does not keep, so
// it takes that index's mark away), or a later run has started in its
// place: the run then leaves the index unmarked, or to the later run.

import "github.com/articlevote/voting/internal/schema"

// buildFields gives the fields of indexed: of the indexes s keeps (built),
// karma and the index of links among them,
// and of those it does not (unbuilt), and of those the live ones (the
// indexes a change of groups writes).
func (s *Store) buildFields() (built, unbuilt, unbuiltLive []string) {
	for i := range schema.Orders {
		o := Order(i)
		if f := schema.BuildField(int(o), false); f != "" {
			if s.keeps[o] {
				built = append(built, f)
			} else {
				unbuilt = append(unbuilt, f)
			}
		}
		if f := schema.BuildField(int(o), true); s.live && s.keeps[o] {
			built = append(built, f)
		} else {
			unbuilt = append(unbuilt, f)
			unbuiltLive = append(unbuiltLive, f)
		}
	}
	for _, f := range [...]struct {
		field string
		kept  bool
	}{{schema.KarmaField, s.karma}, {schema.LinksField, s.unique}} {
		if f.kept {
			built = append(built, f.field)
		} else {
			unbuilt = append(unbuilt, f.field)
		}
	}
	return built, unbuilt, unbuiltLive
}
