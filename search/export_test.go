package search

// KeywordLegSQL lets tests EXPLAIN the keyword leg's statement.
const KeywordLegSQL = keywordLegSQL

// Stems and TSQuery let FuzzPatterns check the statements' arguments
// built from keywords.
var (
	Stems   = stems
	TSQuery = tsQuery
)
