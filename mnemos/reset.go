package mnemos

import (
	"context"

	"yakor"
	"yakor/postgres"
)

// Eraser deletes one layer of a user's memory for good: the anchors
// (anchors.Service) or the facts (facts.Store) of a thread, or all of a
// user's.
type Eraser interface {
	DeleteThread(ctx context.Context, scope yakor.Scope) (int, error)
	DeleteUser(ctx context.Context, scope yakor.Scope) (int, error)
}

// Threads is history's side of a reset: whose thread it is, and its
// summary rows.
type Threads interface {
	ThreadProject(ctx context.Context, scope yakor.Scope) (string, error)
	DeleteSummaries(ctx context.Context, scope yakor.Scope) (int, error)
}

// Resetter clears memory on a user's word: a thread's short-term memory,
// or everything a user's memory holds.
type Resetter struct {
	store   *Store
	facts   Eraser
	anchors Eraser
	threads Threads
}

// NewResetter returns a Resetter.
func NewResetter(store *Store, facts, anchors Eraser, threads Threads) *Resetter {
	return &Resetter{store: store, facts: facts, anchors: anchors, threads: threads}
}

// RefreshThread clears scope's thread's short-term memory for good: its
// anchors, its summaries and its chat facts. The messages stay. It says how
// many of each it deleted. ENOTFOUND: not the user's thread.
func (r *Resetter) RefreshThread(ctx context.Context, scope yakor.Scope) (map[string]int, error) {
	if _, err := r.threads.ThreadProject(ctx, scope); err != nil {
		return nil, err
	}
	out := map[string]int{}
	var err error
	if out["anchors"], err = r.anchors.DeleteThread(ctx, scope); err != nil {
		return nil, err
	}
	if out["summaries"], err = r.threads.DeleteSummaries(ctx, scope); err != nil {
		return nil, err
	}
	if out["chat_facts"], err = r.facts.DeleteThread(ctx, scope); err != nil {
		return nil, err
	}
	return out, nil
}

// deleteUserTopics deletes a user's research topics, unlinking the fails
// they answered first: a distributed schema keeps that key without its ON
// DELETE SET NULL, which Citus does not take (migration 00024).
const deleteUserTopics = `WITH unlinked AS (
    UPDATE research_sufler_fails SET topic_id = NULL
    WHERE tenant_id = $1 AND topic_id IN (SELECT id FROM research_topics WHERE tenant_id = $1 AND user_id = $2))
DELETE FROM research_topics WHERE tenant_id = $1 AND user_id = $2`

// PurgeUser deletes everything scope's user's memory holds, for good: all
// their facts (of every scope, closed ones too), the experiences that came
// from their conversations, their research topics, and the anchors of
// their threads. Messages and threads stay (DELETE /users/{id} removes
// those). It says how many of each it deleted.
func (r *Resetter) PurgeUser(ctx context.Context, scope yakor.Scope) (map[string]int, error) {
	out := map[string]int{}
	var err error
	if out["facts"], err = r.facts.DeleteUser(ctx, scope); err != nil {
		return nil, err
	}
	tag, err := r.store.db.Exec(ctx, `DELETE FROM experiences WHERE tenant_id = $1 AND user_id = $2`, scope.TenantID, scope.UserID)
	if err != nil {
		return nil, postgres.Wrap("purge user memory", err)
	}
	out["experiences"] = int(tag.RowsAffected())
	tag, err = r.store.db.Exec(ctx, deleteUserTopics, scope.TenantID, scope.UserID)
	if err != nil {
		return nil, postgres.Wrap("purge user memory", err)
	}
	out["research_topics"] = int(tag.RowsAffected())
	if out["anchors"], err = r.anchors.DeleteUser(ctx, scope); err != nil {
		return nil, err
	}
	return out, nil
}
