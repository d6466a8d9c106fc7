package voting

// SetBatches sets how many articles one step of a window's trimming and one
// step of Reindex take, so that tests reach the steps' edges with a few
// articles.
func SetBatches(s *Store, trim, reindex int) { s.trimBatch, s.reindexBatch = trim, reindex }

// SetHistoryBatch sets how many voters' histories one step of
// DeleteArticle clears.
func SetHistoryBatch(s *Store, n int) { s.historyBatch = n }
