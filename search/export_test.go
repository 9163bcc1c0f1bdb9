package search

// KeywordLegSQL and TextLegSQL let tests EXPLAIN the legs' statements.
const (
	KeywordLegSQL = keywordLegSQL
	TextLegSQL    = textLegSQL
)

// Patterns and TSQuery let FuzzPatterns check the statements' arguments
// built from keywords.
var (
	Patterns = patterns
	TSQuery  = tsQuery
)

// WithSmallThread sets the size up to which s reads a thread whole, so
// tests can run both paths on the same data.
func WithSmallThread(s *Searcher, n int64) *Searcher {
	c := *s
	c.small = n
	return &c
}
