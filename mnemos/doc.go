// Package mnemos is Yakor's long-term memory.
//
// Experiences, shared by all of a tenant's conversations: L1 examples
// (answers graded 4–5), L2 research notes grouped by theme, L3 antipatterns
// (answers graded 1–2, with what was wrong). Each is embedded in its
// model's space (embed_spaces; vectors are only compared within one, through
// partial HNSW indexes per space and level). Recall finds the entries a
// message calls up by two legs, fused by reciprocal rank as history search
// fuses its own: similarity plus a topic boost, and the message's keywords
// in the entries' words (a GIN index of each entry's words tagged with its
// tenant and level, read through yakor_experience_words, migration 00021),
// weighed by rarity. It fences them in <memory-context> within a budget;
// Scrubber takes an echo of that block out of the model's reply.
// Route turns grades (the grader's, or a user's thumbs, which outrank it)
// into experiences, research_sufler_fails and research topics,
// deduplicated by meaning; a retried grade writes nothing twice.
// TopicQueue is the research job's (likbez) side of the research topics:
// it claims the due ones and records their status. Resetter clears a
// thread's short-term memory or a user's whole memory on their word,
// asking each layer's owner (anchors, facts, history's summaries).
//
// MessageIndex keeps message embeddings for the semantic leg of history
// search. The package owns embed_spaces, experiences, grades,
// research_topics, research_sufler_fails and message_embeddings (migration
// 00004_mnemos.sql; the experiences' words index, 00021). MessageIndex reads messages and threads (history's)
// as history's listed read-only reader: it finds the messages without an
// embedding and checks the ones it stores and finds against their thread
// and user in the same statements. Each user's facts are the facts
// package's.
package mnemos
