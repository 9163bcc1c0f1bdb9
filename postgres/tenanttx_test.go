package postgres_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"yakor/postgres/pgtest"
)

// TestTransactionNamesItsTenantWithItsFirstStatement: a transaction of
// DB.Begin sends its tenant with whatever its first statement is (an exec,
// a query, a row, a batch or a savepoint), and every statement
// after sees that tenant's rows alone.
func TestTransactionNamesItsTenantWithItsFirstStatement(t *testing.T) {
	ctx := context.Background()
	owner, svc := pgtest.NewService(t)
	a, _ := twoTenants(t, owner)
	actA := a.Context(ctx)
	count := func(tx pgx.Tx) int {
		t.Helper()
		var n int
		if err := tx.QueryRow(actA, `SELECT count(*) FROM messages`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	firsts := map[string]func(tx pgx.Tx) error{
		"exec": func(tx pgx.Tx) error {
			tag, err := tx.Exec(actA, `UPDATE messages SET content = content || '!'`)
			if err == nil && tag.RowsAffected() != 2 {
				return errors.New("the unscoped update touched " + tag.String())
			}
			return err
		},
		"query": func(tx pgx.Tx) error {
			rows, err := tx.Query(actA, `SELECT DISTINCT tenant_id::text FROM messages`)
			if err != nil {
				return err
			}
			ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err == nil && (len(ids) != 1 || ids[0] != a.TenantID) {
				return errors.New("the unscoped query saw other tenants")
			}
			return err
		},
		"row": func(tx pgx.Tx) error {
			if n := count(tx); n != 2 {
				return errors.New("the unscoped count saw other tenants' messages")
			}
			return nil
		},
		"batch": func(tx pgx.Tx) error {
			bt := &pgx.Batch{}
			bt.Queue(`SELECT count(*) FROM threads`)
			br := tx.SendBatch(actA, bt)
			var n int
			if err := br.QueryRow().Scan(&n); err != nil || n != 1 {
				br.Close()
				return errors.Join(err, errors.New("the batch saw other tenants' threads"))
			}
			return br.Close()
		},
		"savepoint": func(tx pgx.Tx) error {
			sp, err := tx.Begin(actA)
			if err != nil {
				return err
			}
			if _, err := sp.Exec(actA, `DELETE FROM messages`); err != nil {
				return err
			}
			return sp.Rollback(actA) // the tenant, named before the savepoint, stays named
		},
	}
	for name, first := range firsts {
		t.Run(name, func(t *testing.T) {
			tx, err := svc.Begin(actA)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(ctx)
			if err := first(tx); err != nil {
				t.Fatalf("first statement: %v", err)
			}
			if n := count(tx); n != 2 {
				t.Fatalf("after the first statement the transaction sees %d messages, want tenant A's 2", n)
			}
		})
	}
	// A transaction that fails at its first statement leaves nothing behind.
	tx, err := svc.Begin(actA)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(actA, `SELECT no_such_column FROM messages`); err == nil {
		t.Fatal("a bad first statement succeeded")
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if held := svc.Pool().Stat().AcquiredConns(); held != 0 {
		t.Fatalf("%d connections still held after the transactions ended", held)
	}
}

// TestNoJIT: the service's connections do not compile statements (JIT
// cost 410 ms of a search at 10,000,000 messages).
func TestNoJIT(t *testing.T) {
	_, svc := pgtest.NewService(t)
	var jit string
	if err := svc.QueryRow(context.Background(), `SHOW jit`).Scan(&jit); err != nil || jit != "off" {
		t.Fatalf("jit %q (%v), want off", jit, err)
	}
}
