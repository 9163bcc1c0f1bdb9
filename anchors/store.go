package anchors

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"yakor"
	"yakor/history"
	"yakor/postgres"
)

// DB is what the store needs of a pool or a transaction.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Begin(ctx context.Context) (pgx.Tx, error)
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

const anchorColumns = `id, topic, data, message_id, char_pos, absorbed, episode, first_at, last_at, created_at, updated_at`

func scanAnchor(r pgx.CollectableRow) (Anchor, error) {
	var a Anchor
	err := r.Scan(&a.ID, &a.Topic, &a.Data, &a.MessageID, &a.CharPos, &a.Absorbed, &a.Episode, &a.FirstAt, &a.LastAt, &a.CreatedAt, &a.UpdatedAt)
	return a, err
}

// List is a thread's anchors, oldest first, with the current one and how
// far the thread's messages have been anchored.
type List struct {
	Anchors          []Anchor
	CurrentID        int64
	ProcessedThrough int64 // the last message anchored (0: none yet)
}

// List returns scope's thread's anchors (those merged into another are
// left out). An unknown thread gives an empty list.
func (s *Service) List(ctx context.Context, scope yakor.Scope) (List, error) {
	return list(ctx, s.db, scope)
}

func list(ctx context.Context, db DB, scope yakor.Scope) (List, error) {
	var out List
	// The cursor first: anchoring writes the anchors and the cursor in
	// one transaction, so the anchors read after it hold everything it
	// says was processed (read the other way round, a pass committing in
	// between showed its cursor without its anchors).
	err := db.QueryRow(ctx, `SELECT last_message_id, coalesce(current_id, 0) FROM anchor_cursors WHERE tenant_id = $1 AND thread_id = $2`,
		scope.TenantID, scope.ThreadParam()).Scan(&out.ProcessedThrough, &out.CurrentID)
	if _, err := postgres.Found("list anchors", err); err != nil {
		return out, err
	}
	const q = `SELECT ` + anchorColumns + ` FROM microgoals
WHERE tenant_id = $1 AND user_id = $2 AND thread_id = $3 AND merged_into IS NULL ORDER BY id`
	rows, err := db.Query(ctx, q, scope.TenantID, scope.UserID, scope.ThreadParam())
	if err != nil {
		return out, postgres.Wrap("list anchors", err)
	}
	if out.Anchors, err = pgx.CollectRows(rows, scanAnchor); err != nil {
		return out, postgres.Wrap("list anchors", err)
	}
	return out, nil
}

// queueRecent queues in b the reads of the newest n anchors of scope's
// thread (and the current one, when it is older), oldest first, with how
// many older ones are left out and the cursor's current anchor; without
// allData only the current anchor's data is read. The reads are the
// cursor, the anchors (which read the cursor themselves) and their count,
// the cursor first, as list reads it. It returns what reads their results,
// in b's order.
func queueRecent(b *pgx.Batch, scope yakor.Scope, n int, allData bool) func(pgx.BatchResults) ([]Anchor, int, int64, error) {
	b.Queue(`SELECT coalesce(current_id, 0) FROM anchor_cursors WHERE tenant_id = $1 AND thread_id = $2`, scope.TenantID, scope.ThreadParam())
	b.Queue(recentSQL(`(SELECT current_id FROM anchor_cursors WHERE tenant_id = $1 AND thread_id = $3)`), scope.TenantID, scope.UserID, scope.ThreadParam(), n, allData)
	b.Queue(`SELECT count(*) FROM microgoals g WHERE tenant_id = $1 AND thread_id = $2 AND merged_into IS NULL AND `+onBranch,
		scope.TenantID, scope.ThreadParam())
	return func(br pgx.BatchResults) (as []Anchor, omitted int, currentID int64, err error) {
		if _, err := postgres.Found("recent anchors", br.QueryRow().Scan(&currentID)); err != nil {
			return nil, 0, 0, err
		}
		rows, err := br.Query()
		if err != nil {
			return nil, 0, 0, postgres.Wrap("recent anchors", err)
		}
		if as, err = pgx.CollectRows(rows, scanAnchor); err != nil {
			return nil, 0, 0, postgres.Wrap("recent anchors", err)
		}
		var total int
		if err := br.QueryRow().Scan(&total); err != nil {
			return nil, 0, 0, postgres.Wrap("recent anchors", err)
		}
		return as, max(0, total-len(as)), currentID, nil
	}
}

// onBranch keeps an anchor (microgoals g, the tenant $1) whose message is
// on its thread's branch: an anchor set at a message a client edited away
// or regenerated is left out with it. It probes the small index of
// superseded messages (messages_superseded), not every message's.
const onBranch = `NOT EXISTS (SELECT 1 FROM messages m WHERE m.tenant_id = $1 AND m.thread_id = g.thread_id AND m.id = g.message_id AND m.superseded_at IS NOT NULL)`

// recentSQL selects the newest $4 anchors of the thread $3 of the tenant
// $1 and user $2, and the anchor current (an expression: a parameter or
// the cursor), oldest first; $5 says whether every anchor's data is read
// or only the current one's. The ids come from the index alone; only the
// rows shown are read.
func recentSQL(current string) string {
	return `
WITH cur AS (SELECT ` + current + ` AS id)
SELECT id, topic, CASE WHEN $5 OR id = (SELECT id FROM cur) THEN data ELSE '' END, message_id, char_pos, absorbed, episode, first_at, last_at, created_at, updated_at FROM microgoals g
WHERE tenant_id = $1 AND user_id = $2 AND ` + onBranch + ` AND id IN (
    (SELECT id FROM microgoals g
     WHERE tenant_id = $1 AND thread_id = $3 AND merged_into IS NULL AND ` + onBranch + `
     ORDER BY id DESC LIMIT $4)
    UNION ALL
    SELECT id FROM cur
)
ORDER BY id`
}

// recentAnchors returns the newest n anchors of scope's thread and the
// anchor currentID (0: none), oldest first. Without allData only
// currentID's data is read.
func recentAnchors(ctx context.Context, db DB, scope yakor.Scope, n int, currentID int64, allData bool) ([]Anchor, error) {
	rows, err := db.Query(ctx, recentSQL(`$6::bigint`), scope.TenantID, scope.UserID, scope.ThreadParam(), n, allData, currentID)
	if err != nil {
		return nil, postgres.Wrap("recent anchors", err)
	}
	as, err := pgx.CollectRows(rows, scanAnchor)
	if err != nil {
		return nil, postgres.Wrap("recent anchors", err)
	}
	return as, nil
}

// Update is a user's edit of an anchor; nil fields stay.
type Update struct {
	Topic *string
	Data  *string
}

// UpdateAnchor edits an anchor of scope's tenant and user. Errors:
// ENOTFOUND, EINVALID (empty topic, data over MaxData, bad text).
func (s *Service) UpdateAnchor(ctx context.Context, scope yakor.Scope, id int64, u Update) (Anchor, error) {
	if u.Topic != nil {
		t := strings.TrimSpace(*u.Topic)
		if err := history.ValidText("topic", t, 200); err != nil {
			return Anchor{}, err
		}
		if t == "" {
			return Anchor{}, yakor.Errorf(yakor.EINVALID, "topic is empty")
		}
		u.Topic = &t
	}
	if u.Data != nil {
		if err := history.ValidText("data", *u.Data, MaxData); err != nil {
			return Anchor{}, err
		}
	}
	const q = `UPDATE microgoals SET topic = coalesce($4, topic), data = coalesce($5, data), updated_at = now()
WHERE tenant_id = $1 AND user_id = $2 AND id = $3 AND merged_into IS NULL
RETURNING ` + anchorColumns
	rows, err := s.db.Query(ctx, q, scope.TenantID, scope.UserID, id, u.Topic, u.Data)
	if err != nil {
		return Anchor{}, postgres.Wrap("update anchor", err)
	}
	a, err := pgx.CollectExactlyOneRow(rows, scanAnchor)
	if err != nil {
		return Anchor{}, postgres.NotFound("update anchor", err, yakor.Errorf(yakor.ENOTFOUND, "anchor %d not found", id))
	}
	return a, nil
}

// DeleteAnchor deletes an anchor of scope's tenant and user. Errors:
// ENOTFOUND.
func (s *Service) DeleteAnchor(ctx context.Context, scope yakor.Scope, id int64) error {
	return pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		var thread string
		err := tx.QueryRow(ctx, `DELETE FROM microgoals WHERE tenant_id = $1 AND user_id = $2 AND id = $3 RETURNING thread_id::text`,
			scope.TenantID, scope.UserID, id).Scan(&thread)
		if err != nil {
			return postgres.NotFound("delete anchor", err, yakor.Errorf(yakor.ENOTFOUND, "anchor %d not found", id))
		}
		_, err = tx.Exec(ctx, `UPDATE anchor_cursors SET current_id = NULL WHERE tenant_id = $1 AND thread_id = $2 AND current_id = $3`,
			scope.TenantID, thread, id)
		return postgres.Wrap("delete anchor", err)
	})
}

// DecisionRecord is the decision taken for one message.
type DecisionRecord struct {
	MessageID  int64     `json:"message_id"`
	Decision   Decision  `json:"decision"`
	Rule       string    `json:"rule"`
	AnchorID   int64     `json:"anchor_id,omitempty"`
	Similarity float64   `json:"similarity"`
	Source     string    `json:"source"`
	Topic      string    `json:"topic"`
	CreatedAt  time.Time `json:"created_at"`
}

// Decisions returns the decisions taken for the messages, in message order.
func (s *Service) Decisions(ctx context.Context, scope yakor.Scope, messageIDs []int64) ([]DecisionRecord, error) {
	const q = `SELECT message_id, decision, rule, coalesce(anchor_id, 0) AS anchor_id, similarity, source, topic, created_at
FROM anchor_decisions WHERE tenant_id = $1 AND thread_id = $2 AND message_id = ANY($3) ORDER BY message_id`
	rows, err := s.db.Query(ctx, q, scope.TenantID, scope.ThreadParam(), messageIDs)
	if err != nil {
		return nil, postgres.Wrap("anchor decisions", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[DecisionRecord])
	if err != nil {
		return nil, postgres.Wrap("anchor decisions", err)
	}
	return out, nil
}
