package search

// KeywordLegSQL lets tests EXPLAIN the keyword leg's statement.
const KeywordLegSQL = keywordLegSQL

// TSQuery lets FuzzPatterns check the statements' arguments built from
// keywords.
var TSQuery = tsQuery
