// Package search lets the model search a whole thread. It parses the
// SEARCH_HISTORY marker out of the model's streamed output, turns a query
// into keywords (folded, stop words removed, stemmed), and runs a
// parameterized, relevance-ranked search over the thread's messages
// (read-only, on history's messages table) for a second pass. Two lexical
// legs rank the messages, a keyword leg (substrings of the folded text,
// weighted by rarity) and a full-text leg; an optional semantic leg
// (WithSemantic: the messages whose embeddings are nearest the query's,
// found by an index kept elsewhere, such as mnemos.MessageIndex) joins
// them, and the lists are fused by reciprocal rank.
package search
