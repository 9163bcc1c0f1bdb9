// Package facts keeps each user's durable facts: chat facts (one thread's),
// user facts (the person's, across their conversations) and project facts
// (one of the user's projects), of seven kinds (fact, preference,
// constraint, decision, finding, blocker, correction).
//
// Extract reads a thread's new user messages after each turn (a job) and
// before compaction summarizes them, and asks the helper model for their
// facts (Request, Parse), or the offline extractor (Offline) when there is
// none or its answer is unusable. Each fact keeps its provenance (the
// messages it came from), confidence and validity: a new value of a slot
// supersedes the old fact, "forget that…" closes the facts it names, and
// the caps per scope evict the least recently used. Block renders the facts
// a thread sees into the head of its prompt within a budget, and MarkUsed
// records that they were used. List, Add, Update and Delete serve the API;
// DeleteThread and DeleteUser serve a reset on the user's word.
//
// The package owns the facts and fact_cursors tables (migration
// 00006_facts.sql). It reads messages and threads through history. No fact
// reaches another user, and a project's facts no other project.
package facts
