package voting

// SetBatches sets how many articles one step of a window's trimming and one
// step of Reindex take, so that tests reach the steps' edges with a few
// articles.
func SetBatches(s *Store, trim, reindex int) { s.trimBatch, s.reindexBatch = trim, reindex }
