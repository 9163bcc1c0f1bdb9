// Package lifecycle removes a user's, a thread's or a message's data with
// everything derived from it, and exports a user's data. It is the one
// place that knows what is derived from what across the stores' tables;
// each removal is one transaction, and no model is called. Foreign keys
// with ON DELETE CASCADE carry most of it (a thread's messages, turns,
// anchors, chat facts, cursors and compactions; a message's grades, fails
// and embeddings; a user's threads, facts and keys); what no key carries
// (experiences, research topics, facts and anchors citing a message,
// summaries that covered it) is removed here.
package lifecycle

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/postgres"
)

// DB begins transactions held to the context's tenant.
type DB interface {
	Begin(ctx context.Context) (pgx.Tx, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Service removes and exports data.
type Service struct {
	db DB
}

// New returns a Service on db.
func New(db DB) *Service { return &Service{db: db} }

// Deleted counts what a removal deleted, by table.
type Deleted map[string]int64

// exec runs q in tx and counts its rows as table's.
func (d Deleted) exec(ctx context.Context, tx pgx.Tx, table, q string, args ...any) error {
	tag, err := tx.Exec(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("delete %s: %w", table, err)
	}
	if n := tag.RowsAffected(); n > 0 {
		d[table] += n
	}
	return nil
}

// DeleteThread removes scope's thread (scope's user's; ENOTFOUND
// otherwise) and everything derived from it: its messages, summaries,
// turns and traces, anchors and their decisions, chat facts, embeddings,
// grades, fails, and the private experiences its conversation made.
func (s *Service) DeleteThread(ctx context.Context, scope yakor.Scope) (Deleted, error) {
	d := Deleted{}
	err := pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		if err := d.exec(ctx, tx, "experiences", `DELETE FROM experiences WHERE tenant_id = $1 AND user_id = $2 AND thread_id = $3 AND visibility = 'private'`,
			scope.TenantID, scope.UserID, scope.ThreadParam()); err != nil {
			return err
		}
		if err := d.exec(ctx, tx, "threads", `DELETE FROM threads WHERE tenant_id = $1 AND user_id = $2 AND id = $3`, scope.TenantID, scope.UserID, scope.ThreadParam()); err != nil {
			return err
		}
		if d["threads"] == 0 {
			return yakor.Errorf(yakor.ENOTFOUND, "thread %q not found", scope.ThreadID)
		}
		return nil
	})
	return d, postgres.Wrap("delete thread", err)
}

// DeleteMessage removes one of scope's user's messages and what was
// derived from it: its turn, grades, fails and embedding (by cascade), the
// facts and anchors it was the source of, the private experiences that
// quote it, and every summary that covered it (with its compaction, so
// that the next compaction summarizes anew without it). ENOTFOUND: no
// such message of the user.
func (s *Service) DeleteMessage(ctx context.Context, scope yakor.Scope, id int64) (Deleted, error) {
	d := Deleted{}
	err := pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		var thread string
		err := tx.QueryRow(ctx, `SELECT thread_id::text FROM messages m WHERE m.tenant_id = $1 AND m.id = $2
    AND EXISTS (SELECT 1 FROM threads t WHERE t.tenant_id = m.tenant_id AND t.id = m.thread_id AND t.user_id = $3)`,
			scope.TenantID, id, scope.UserID).Scan(&thread)
		if err != nil {
			return postgres.NotFound("find message", err, yakor.Errorf(yakor.ENOTFOUND, "message %d not found", id))
		}
		steps := []struct{ table, q string }{
			{"messages", `DELETE FROM messages WHERE tenant_id = $1 AND kind = 'summary' AND id IN (
    SELECT summary_message_id FROM compactions WHERE tenant_id = $1 AND thread_id = $2 AND through_id >= $3)`},
			{"compactions", `DELETE FROM compactions WHERE tenant_id = $1 AND thread_id = $2 AND through_id >= $3`},
			{"facts", `DELETE FROM facts WHERE tenant_id = $1 AND $3 = ANY(source_message_ids) AND (thread_id IS NULL OR thread_id = $2::uuid)`},
			{"microgoals", `DELETE FROM microgoals WHERE tenant_id = $1 AND thread_id = $2 AND message_id = $3`},
			{"anchor_decisions", `DELETE FROM anchor_decisions WHERE tenant_id = $1 AND thread_id = $2 AND message_id = $3`},
			{"experiences", `DELETE FROM experiences WHERE tenant_id = $1 AND thread_id = $2 AND visibility = 'private'
    AND ($3 = ANY(source_message_ids) OR question_message_id = $3 OR reply_message_id = $3)`},
			{"messages", `DELETE FROM messages WHERE tenant_id = $1 AND thread_id = $2 AND id = $3`},
		}
		for _, st := range steps {
			if err := d.exec(ctx, tx, st.table, st.q, scope.TenantID, thread, id); err != nil {
				return err
			}
		}
		return nil
	})
	return d, postgres.Wrap("delete message", err)
}

// DeleteUser removes a user of scope's tenant and everything of theirs:
// threads with all derived from them, user and project facts, private
// experiences, research topics and articles, fails, grades, and keys.
// keepRow keeps the user's row (the local user, whom the server serves
// without keys), emptied.
func (s *Service) DeleteUser(ctx context.Context, scope yakor.Scope, userID string, keepRow bool) (Deleted, error) {
	d := Deleted{}
	err := pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		var name, external *string
		if err := tx.QueryRow(ctx, `SELECT name, external_id FROM users WHERE tenant_id = $1 AND id::text = $2`, scope.TenantID, userID).Scan(&name, &external); err != nil {
			return postgres.NotFound("find user", err, yakor.Errorf(yakor.ENOTFOUND, "user %q not found", userID))
		}
		// The fails a topic answered are unlinked first: a distributed
		// schema keeps that key without its ON DELETE SET NULL (migration
		// 00024).
		if _, err := tx.Exec(ctx, `UPDATE research_sufler_fails SET topic_id = NULL
WHERE tenant_id = $1 AND topic_id IN (SELECT id FROM research_topics WHERE tenant_id = $1 AND user_id::text = $2)`, scope.TenantID, userID); err != nil {
			return fmt.Errorf("unlink fails: %w", err)
		}
		for _, table := range []string{"experiences", "research_articles", "research_topics", "facts", "api_keys", "threads"} {
			if err := d.exec(ctx, tx, table, `DELETE FROM `+table+` WHERE tenant_id = $1 AND user_id::text = $2`, scope.TenantID, userID); err != nil {
				return err
			}
		}
		if err := d.exec(ctx, tx, "users", `DELETE FROM users WHERE tenant_id = $1 AND id::text = $2`, scope.TenantID, userID); err != nil {
			return err
		}
		if keepRow {
			_, err := tx.Exec(ctx, `INSERT INTO users (tenant_id, id, name, external_id) VALUES ($1, $2, $3, $4)`, scope.TenantID, userID, name, external)
			return err
		}
		return nil
	})
	return d, postgres.Wrap("delete user", err)
}

// notFound reads no rows as the user's ENOTFOUND.
func notFound(op string, err error, userID string) error {
	return postgres.NotFound(op, err, yakor.Errorf(yakor.ENOTFOUND, "user %q not found", userID))
}
