package anchors

import (
	"context"

	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/postgres"
)

// DeleteThread deletes scope's thread's anchors for good. The thread's
// messages stay anchored, not anchored again: anchoring starts afresh with
// the next message. It returns how many anchors it deleted.
func (s *Service) DeleteThread(ctx context.Context, scope yakor.Scope) (int, error) {
	var n int64
	err := pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		// The thread's anchoring lock (see Apply): no job writes meanwhile.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 7))`, scope.ThreadID); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `DELETE FROM microgoals WHERE tenant_id = $1 AND user_id = $2 AND thread_id = $3`, scope.TenantID, scope.UserID, scope.ThreadParam())
		if err != nil {
			return err
		}
		n = tag.RowsAffected()
		_, err = tx.Exec(ctx, `UPDATE anchor_cursors SET current_id = NULL, chars_total = 0, current_since = 0, off_topic = 0 WHERE tenant_id = $1 AND thread_id = $2`, scope.TenantID, scope.ThreadParam())
		return err
	})
	return int(n), postgres.Wrap("delete anchors", err)
}

// DeleteUser deletes the anchors of all scope's user's threads for good.
func (s *Service) DeleteUser(ctx context.Context, scope yakor.Scope) (int, error) {
	tag, err := s.db.Exec(ctx, `DELETE FROM microgoals WHERE tenant_id = $1 AND user_id = $2`, scope.TenantID, scope.UserID)
	if err != nil {
		return 0, postgres.Wrap("delete anchors", err)
	}
	if _, err := s.db.Exec(ctx, `UPDATE anchor_cursors c SET current_id = NULL, chars_total = 0, current_since = 0, off_topic = 0 FROM threads t
WHERE c.tenant_id = $1 AND t.tenant_id = $1 AND t.user_id = $2 AND c.thread_id = t.id`, scope.TenantID, scope.UserID); err != nil {
		return 0, postgres.Wrap("delete anchors", err)
	}
	return int(tag.RowsAffected()), nil
}
