package schema

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

// BuiltYes is the value of a field of indexed: whose index holds every
// article; a run of Reindex that builds it marks it "0:<token>" first.
const BuiltYes = "1"

// BuildField is the field of indexed: for the site's index of o, or with
// live for the groups' live indexes of o: "votes", "live:score". It is ""
// for the site's indexes of the book's two orders, which every Store and
// the book's code keep, so always built.
func BuildField(o int, live bool) string {
	switch {
	case live:
		return LivePart + Orders[o].Name
	case Orders[o].Always:
		return ""
	}
	return Orders[o].Name
}
