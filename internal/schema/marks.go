package schema

// This file holds which indexes are built, a concept of its own: an index
// of an order beyond the book's two, or the groups' live indexes of an
// order, holds every article only if it has been kept since the namespace's
// first article or built by Reindex. The hash indexed: says which are
// built. A listing reads its index's field, the count of the articles
// indexed and the size of the time index in the round trip that reads its
// page, and answers
// ErrNotIndexed for an index not built, rather than an empty or partial
// page.
//
// An empty namespace (its time index holds no article) has every index
// complete, marked or not, and a post into it marks every index the
// namespace keeps as built (every Store's writes keep them all: the
// namespace's settings, settings.go). An index added to the settings loses
// its mark. A run of Reindex marks the indexes it builds "0:<token>", with
// the run's own token, when it starts, and "1" when it completes, unless
// meanwhile a later run has started in its place: the run then leaves the
// index to the later run.
//
// A mark says only that the library's writes have kept the index; an
// article another writer posts is in none of them. So a listing also reads
// the count of the articles the library has indexed (CountField) and the
// size of the time index, and takes an index as complete only when the
// two agree.

import "strconv"

// CountField is the field of indexed: that counts the articles the
// library has indexed: a post adds one, a deletion of an article of the
// time index takes one, and a run of Reindex, once done, adds those its
// start found the time index held beyond the count (lib/marks.lua). An
// article another writer posts (the book's code, a script, an older
// release) joins the time index and not the count: while the two differ,
// no index beyond the book's two holds every article.
const CountField = "articles"

// Complete reports whether an index holds every article, from its field of
// indexed: (mark), the count of the articles indexed (count, "" for none)
// and the size of the time index (articles), as lib/marks.lua's complete
// does.
func Complete(mark, count string, articles int64) bool {
	return articles == 0 || mark == BuiltYes && count == strconv.FormatInt(articles, 10)
}

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
