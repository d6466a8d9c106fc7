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

import (
	"fmt"
	"strings"
)

// builtYes is the value of a field of indexed: whose index holds every
// article; a run of Reindex that builds it marks it "0:<token>" first.
const builtYes = "1"

// buildField is the field of indexed: for the site's index of o, or with
// live for the groups' live indexes of o: "votes", "live:score". It is ""
// for the site's indexes of the book's two orders, which every Store and
// the book's code keep, so always built.
func buildField(o Order, live bool) string {
	switch {
	case live:
		return livePart + orders[o].name
	case orders[o].always:
		return ""
	}
	return orders[o].name
}

// buildFields gives the fields of indexed: of the indexes s keeps (built),
// karma and the index of links among them,
// and of those it does not (unbuilt), and of those the live ones (the
// indexes a change of groups writes).
func (s *Store) buildFields() (built, unbuilt, unbuiltLive []string) {
	for i := range orders {
		o := Order(i)
		if f := buildField(o, false); f != "" {
			if s.keeps[o] {
				built = append(built, f)
			} else {
				unbuilt = append(unbuilt, f)
			}
		}
		if f := buildField(o, true); s.live && s.keeps[o] {
			built = append(built, f)
		} else {
			unbuilt = append(unbuilt, f)
			unbuiltLive = append(unbuiltLive, f)
		}
	}
	for _, f := range [...]struct {
		field string
		kept  bool
	}{{karmaField, s.karma}, {linksField, s.unique}} {
		if f.kept {
			built = append(built, f.field)
		} else {
			unbuilt = append(unbuilt, f.field)
		}
	}
	return built, unbuilt, unbuiltLive
}

// The fields of indexed: of karma: (WithKarma) and of links:
// (WithUniqueLinks).
const (
	karmaField = "karma"
	linksField = "links"
)

// notIndexed is ErrNotIndexed for a listing of the index whose field of
// indexed: is field.
func notIndexed(field string) error {
	if order, live := strings.CutPrefix(field, livePart); live {
		return &kindError{ErrNotIndexed, fmt.Sprintf("the groups' live %s indexes do not hold every article yet: run Reindex to build them", order)}
	}
	switch field {
	case karmaField:
		return &kindError{ErrNotIndexed, "karma does not count every article yet: run Reindex to count it"}
	case linksField:
		return &kindError{ErrNotIndexed, "the index of links does not hold every article's yet: run Reindex to build it"}
	}
	return &kindError{ErrNotIndexed, fmt.Sprintf("the %s index does not hold every article yet: run Reindex to build it", field)}
}
