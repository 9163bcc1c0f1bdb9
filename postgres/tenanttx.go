package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// tenantTx is a transaction of DB.Begin whose tenant is named by the first
// statement sent in it: the setting goes ahead of that statement in one
// batch. Every method that runs a statement names the tenant first; a
// transaction that runs none commits without it.
type tenantTx struct {
	pgx.Tx
	set    string // the statement that names the tenant; "" once sent
	tenant string
}

// named sends the tenant's setting on its own when the next statement
// cannot share its batch (a savepoint). A copy needs no tenant: PostgreSQL
// refuses COPY FROM under row-level security.
func (tx *tenantTx) named(ctx context.Context) error {
	if tx.set == "" {
		return nil
	}
	if _, err := tx.Tx.Exec(ctx, tx.set, tx.tenant); err != nil {
		return fmt.Errorf("set tenant: %w", err)
	}
	tx.set = ""
	return nil
}

// send sends b, after the tenant's setting while it is not sent, and
// returns the batch at b's first result.
func (tx *tenantTx) send(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if tx.set == "" {
		return tx.Tx.SendBatch(ctx, b)
	}
	scoped := &pgx.Batch{}
	scoped.Queue(tx.set, tx.tenant)
	scoped.QueuedQueries = append(scoped.QueuedQueries, b.QueuedQueries...)
	tx.set = ""
	return pastHead(tx.Tx.SendBatch(ctx, scoped), 1)
}

func (tx *tenantTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if tx.set == "" {
		return tx.Tx.Exec(ctx, sql, args...)
	}
	br, err := opened(tx.send(ctx, batchOf(sql, args)))
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	return execIn(br)
}

func (tx *tenantTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if tx.set == "" {
		return tx.Tx.Query(ctx, sql, args...)
	}
	br, err := opened(tx.send(ctx, batchOf(sql, args)))
	if err != nil {
		return nil, err
	}
	return queryIn(br)
}

func (tx *tenantTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if tx.set == "" {
		return tx.Tx.QueryRow(ctx, sql, args...)
	}
	return firstRow(tx.Query(ctx, sql, args...))
}

func (tx *tenantTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	return tx.send(ctx, b)
}

// Begin starts a savepoint, the tenant named first: a setting made inside
// a savepoint rolled back would be undone with it.
func (tx *tenantTx) Begin(ctx context.Context) (pgx.Tx, error) {
	if err := tx.named(ctx); err != nil {
		return nil, err
	}
	return tx.Tx.Begin(ctx)
}
