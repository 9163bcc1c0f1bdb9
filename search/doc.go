// Package search lets the model search a whole thread. It parses the
// SEARCH_HISTORY marker out of the model's streamed output, turns a query
// into keywords (folded, stop words removed, stemmed), and runs a
// parameterized, relevance-ranked search over the thread's messages
// (read-only, on history's messages table) for a second pass.
package search
