// Package search lets the model search a whole thread. It owns the
// SEARCH_HISTORY protocol: the instruction that teaches it (Instruction),
// the marker line the model writes (Marker), the parser that takes that
// line out of the model's streamed output (Parser), and the block of hits
// given back for a second pass (FoundOpen, FormatHits). And it runs a
// parameterized, relevance-ranked search over the thread's messages
// (read-only, on history's messages table) for the keywords of a query
// (words.Keywords: folded, stop words removed, stemmed). Two lexical legs
// rank the messages, a keyword leg (words of the folded text starting with
// the stems, found through an index of each thread's words and weighted by
// rarity) and a full-text leg ranking what it found; an optional semantic
// leg (WithSemantic: the messages whose embeddings are nearest the query's,
// found by an index kept elsewhere, such as mnemos.MessageIndex) joins
// them, and the lists are fused by reciprocal rank. It owns no tables.
package search
