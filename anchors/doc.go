// Package anchors keeps a thread's anchors (microgoals): the save points of
// a conversation. Each anchor is a dialogue topic and a distillate of its
// key data (prices, totals, A × B = C results, decisions), and the chain of
// them is placed in every prompt, so the model still knows what was
// discussed and which numbers were settled after those messages have left
// its window.
//
// The pure core needs no database:
//
//   - OfflineExtract reads a message's topic (words.Topic: a short noun
//     phrase of the message) and key data (the figures of its price lists,
//     calculations and tables, each with what it measures) with no model,
//     and nothing from the offline model's own replies (a helper model may
//     give an Extraction instead);
//   - offlineNotes keeps a user's statements worth coming back for (events
//     told in the first person, dates, names, decisions) as the anchor's
//     notes, dated when they name a relative day (notes.go);
//   - Decide takes, per message, one of NEW_ANCHOR (only when the
//     conversation really moves: new figures, a change that stayed, or a
//     long run), MERGE_ANCHOR (a return to an earlier topic),
//     UPDATE_ANCHOR_DATA or NO_ANCHOR (a short detour among them), and
//     records which rule fired; topics are compared with words.Similarity,
//     a pg_trgm-style trigram similarity over Snowball stems, and by their
//     embeddings too when an embedding model is configured (semantic.go);
//   - the oldest anchors fold into episodes (episodes.go), so the block
//     maps the whole conversation: a phrase and the days each spans;
//   - Distill merges new data into an anchor's data, newest values winning,
//     within MaxData (1,500) characters;
//   - Block renders the anchors block of a prompt ("[DIALOGUE TOPICS: … →
//     …]" / "[ТЕМЫ ДИАЛОГА: …]" and the data line) within a budget, folding
//     the oldest data first, then the whole anchors' topics, the episodes'
//     last, and never the current anchor.
//
// The package owns table microgoals, one row per anchor with the message
// and character position it was set at (its storage is in store.go), and
// anchor_cursors and anchor_decisions (migration 00003_anchors.sql). It
// reads a thread's messages and speakers through history.
package anchors
