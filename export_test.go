package voting

// SetBatches sets how many articles one step of a window's trimming and one
// step of Reindex take, so that tests reach the steps' edges with a few
// articles.
func SetBatches(s *Store, trim, reindex int) { s.trimBatch, s.reindexBatch = trim, reindex }

// SetHistoryBatch sets how many voters' histories one step of
// DeleteArticle clears.
func SetHistoryBatch(s *Store, n int) { s.historyBatch = n }

// IndexValue is what the index of order o holds for an article, computed
// in Go (wantValue in lua_test.go): the tests' one model of it.
func IndexValue(o Order, posted, ups, downs, score float64) float64 {
	want, _ := wantValue(orders[o].kind, posted, ups, downs, score)
	return want
}

// IndexValueMatches reports whether got, a value Redis holds in the index
// of order o, is the one IndexValue gives, to within rounding for a value
// Lua computes with a power.
func IndexValueMatches(o Order, got, posted, ups, downs, score float64) bool {
	return valueMatches(orders[o].kind, got, posted, ups, downs, score)
}
