// Package search will let the model search a whole thread: it parses the
// SEARCH_HISTORY marker out of the model's streamed output and runs a
// parameterized, relevance-ranked ILIKE and full-text search over the
// thread's messages (read-only, on history's messages table) for a second
// pass.
package search
