package mnemos

import (
	"context"

	"yakor"
	"yakor/postgres"
)

// AnchorEraser deletes anchors.
type AnchorEraser interface {
	DeleteThread(ctx context.Context, scope yakor.Scope) (int, error)
	DeleteUser(ctx context.Context, scope yakor.Scope) (int, error)
}

// SummaryEraser deletes a thread's summary rows.
type SummaryEraser interface {
	DeleteSummaries(ctx context.Context, scope yakor.Scope) (int, error)
}

// Resetter clears memory on a user's word: a thread's short-term memory,
// or everything a user's memory holds.
type Resetter struct {
	store     *Store
	anchors   AnchorEraser
	summaries SummaryEraser
}

// NewResetter returns a Resetter.
func NewResetter(store *Store, anchors AnchorEraser, summaries SummaryEraser) *Resetter {
	return &Resetter{store: store, anchors: anchors, summaries: summaries}
}

// RefreshThread clears scope's thread's short-term memory for good: its
// anchors, its summaries and its chat facts. The messages stay. It says how
// many of each it deleted. ENOTFOUND: not the user's thread.
func (r *Resetter) RefreshThread(ctx context.Context, scope yakor.Scope) (map[string]int, error) {
	if _, err := threadProject(ctx, r.store.db, scope); err != nil {
		return nil, err
	}
	out := map[string]int{}
	var err error
	if out["anchors"], err = r.anchors.DeleteThread(ctx, scope); err != nil {
		return nil, err
	}
	if out["summaries"], err = r.summaries.DeleteSummaries(ctx, scope); err != nil {
		return nil, err
	}
	tag, err := r.store.db.Exec(ctx, `DELETE FROM facts WHERE tenant_id = $1 AND user_id = $2 AND thread_id = $3 AND scope = 'chat'`,
		scope.TenantID, scope.UserID, scope.ThreadParam())
	if err != nil {
		return nil, postgres.Wrap("refresh thread", err)
	}
	out["chat_facts"] = int(tag.RowsAffected())
	// The fact extractor does not read those messages again.
	return out, nil
}

// PurgeUser deletes everything scope's user's memory holds, for good: all
// their facts (of every scope, closed ones too), the experiences that came
// from their conversations, and the anchors of their threads. Messages and
// threads stay. It says how many of each it deleted.
func (r *Resetter) PurgeUser(ctx context.Context, scope yakor.Scope) (map[string]int, error) {
	out := map[string]int{}
	tag, err := r.store.db.Exec(ctx, `DELETE FROM facts WHERE tenant_id = $1 AND user_id = $2`, scope.TenantID, scope.UserID)
	if err != nil {
		return nil, postgres.Wrap("purge user memory", err)
	}
	out["facts"] = int(tag.RowsAffected())
	tag, err = r.store.db.Exec(ctx, `DELETE FROM experiences WHERE tenant_id = $1 AND user_id = $2`, scope.TenantID, scope.UserID)
	if err != nil {
		return nil, postgres.Wrap("purge user memory", err)
	}
	out["experiences"] = int(tag.RowsAffected())
	if out["anchors"], err = r.anchors.DeleteUser(ctx, scope); err != nil {
		return nil, err
	}
	return out, nil
}
