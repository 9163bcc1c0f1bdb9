package turn_test

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"yakor"
	"yakor/anchors"
	"yakor/postgres"
	"yakor/postgres/pgtest"
	"yakor/turn"
)

// findThreadSQL is how history.Store.FindThread's statement reads.
const findThreadSQL = "FROM threads WHERE tenant_id = $1 AND user_id = $2 AND id = $3"

// countingDB counts the history.Store.FindThread statements run on it and
// in the transactions begun on it.
type countingDB struct {
	*postgres.DB
	finds atomic.Int64
}

func (d *countingDB) count(sql string) {
	if strings.HasPrefix(sql, "SELECT id::text AS id, coalesce(project_id::text, '') AS project_id, title") && strings.Contains(sql, findThreadSQL) {
		d.finds.Add(1)
	}
}

func (d *countingDB) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	d.count(sql)
	return d.DB.Query(ctx, sql, args...)
}

func (d *countingDB) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	d.count(sql)
	return d.DB.QueryRow(ctx, sql, args...)
}

func (d *countingDB) Begin(ctx context.Context) (pgx.Tx, error) {
	tx, err := d.DB.Begin(ctx)
	if err != nil {
		return nil, err
	}
	return countingTx{Tx: tx, db: d}, nil
}

type countingTx struct {
	pgx.Tx
	db *countingDB
}

func (t countingTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	t.db.count(sql)
	return t.Tx.Exec(ctx, sql, args...)
}

func (t countingTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	t.db.count(sql)
	return t.Tx.Query(ctx, sql, args...)
}

func (t countingTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	t.db.count(sql)
	return t.Tx.QueryRow(ctx, sql, args...)
}

// TestSendFindsThreadOnce: a turn looks its thread up once, the anchors it
// applies and reads included; a replayed send too.
func TestSendFindsThreadOnce(t *testing.T) {
	f := mustFixture(t)
	db := &countingDB{DB: f.svc}
	e := turn.NewEngine(db, &model{reply: "the answer"}, turn.Config{AnchorMode: turn.AnchorSync}, pgtest.Logger(t), nil).
		WithAnchors(anchors.NewService(db, anchors.ServiceConfig{}, nil, pgtest.Logger(t), nil))
	if _, err := f.send(e, "hello", "c1"); err != nil {
		t.Fatal(err)
	}
	if n := db.finds.Swap(0); n != 1 {
		t.Errorf("a turn found its thread %d times, want once", n)
	}
	if out, err := f.send(e, "hello", "c1"); err != nil || !out.Replayed {
		t.Fatalf("resend: %+v, %v", out, err)
	}
	if n := db.finds.Swap(0); n != 1 {
		t.Errorf("a replayed send found its thread %d times, want once", n)
	}
}

// TestSeen: what a turn showed its model is the message it answered and
// its window (the earlier exchange here); another user sees no such turn.
func TestSeen(t *testing.T) {
	f := mustFixture(t)
	e := turn.NewEngine(f.svc, &model{reply: "the answer"}, turn.DefaultConfig(), pgtest.Logger(t), nil)
	first, err := f.send(e, "The board costs 3400.", "c1")
	if err != nil {
		t.Fatal(err)
	}
	second, err := f.send(e, "And the panel?", "c2")
	if err != nil {
		t.Fatal(err)
	}
	ctx := f.scope.Context(context.Background())
	question, seen, err := e.Seen(ctx, f.scope, second.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	if question != second.UserMessage.ID || !slices.Contains(seen, first.UserMessage.ID) || !slices.Contains(seen, first.Reply.ID) {
		t.Fatalf("turn saw question %d and %v; want %d and the first exchange %d, %d", question, seen, second.UserMessage.ID, first.UserMessage.ID, first.Reply.ID)
	}
	other := f.scope
	other.UserID = "00000000-0000-0000-0000-000000000000"
	if _, _, err := e.Seen(ctx, other, second.TurnID); yakor.ErrorCode(err) != yakor.ENOTFOUND {
		t.Fatalf("another user's Seen: %v, want ENOTFOUND", err)
	}
}
