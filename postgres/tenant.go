package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"yakor"
)

// ServiceRole is the role the service's requests run as. It owns no table
// and cannot bypass row-level security: every tenant-keyed table lets it
// see and write only the rows of the tenant its transaction names (the
// setting TenantSetting, set per transaction by DB).
const ServiceRole = "yakor_service"

// TenantSetting is the per-transaction setting the row-level security
// policies read (see migration 00008).
const TenantSetting = "yakor.tenant"

const setTenant = `SELECT set_config('` + TenantSetting + `', $1, true)`

// setTenantDistributed names the tenant on a Citus coordinator: only a SET
// LOCAL in a transaction block reaches the workers' shard queries, where
// the policies hold (migration 00024's yakor_set_tenant runs one).
const setTenantDistributed = `SELECT yakor_set_tenant($1)`

// DB runs queries on a pool in the tenant the context names
// (yakor.WithTenant): each statement is sent in one round trip together
// with a SET LOCAL of the tenant setting, in one implicit transaction, and
// each transaction it begins sets it first. A context without a tenant
// runs the statement as it is, so on the service role's pool it sees no
// tenant-keyed row. DB has the methods of a pool the stores use, so they
// take it where they took a pool.
//
// On a Citus coordinator (Distributed) each statement is sent as BEGIN,
// the tenant's SET LOCAL, the statement and COMMIT, still in one batch:
// the setting reaches the workers only from a transaction block.
type DB struct {
	pool        *pgxpool.Pool
	distributed bool
}

// NewDB returns a DB on pool.
func NewDB(pool *pgxpool.Pool) *DB { return &DB{pool: pool} }

// Pool returns the pool under db, for the job queue, which keeps no tenant
// data.
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// Distributed reports whether the database is a Citus coordinator (the
// citus extension is installed in it).
func (db *DB) Distributed() bool { return db.distributed }

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error { return db.pool.Ping(ctx) }

// Exec runs sql in ctx's tenant.
func (db *DB) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	tenant, ok := yakor.TenantFrom(ctx)
	if !ok {
		return db.pool.Exec(ctx, sql, args...)
	}
	br, err := db.scoped(ctx, tenant, sql, args)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	return execIn(br)
}

// execIn reads the result of the statement br is at, then ends the batch.
func execIn(br pgx.BatchResults) (pgconn.CommandTag, error) {
	defer br.Close()
	tag, err := br.Exec()
	if err != nil {
		return tag, err
	}
	return tag, br.Close()
}

// Query runs sql in ctx's tenant. The rows hold the connection until
// closed or read to their end, as a pool's do.
func (db *DB) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	tenant, ok := yakor.TenantFrom(ctx)
	if !ok {
		return db.pool.Query(ctx, sql, args...)
	}
	br, err := db.scoped(ctx, tenant, sql, args)
	if err != nil {
		return nil, err
	}
	return queryIn(br)
}

// queryIn returns the rows of the statement br is at; they end the batch.
func queryIn(br pgx.BatchResults) (pgx.Rows, error) {
	rows, err := br.Query()
	if err != nil {
		br.Close()
		return nil, err
	}
	return &batchRows{Rows: rows, br: br}, nil
}

// scoped sends sql after setting the tenant, in one batch (one round trip,
// one implicit transaction), and returns the batch at sql's result.
func (db *DB) scoped(ctx context.Context, tenant, sql string, args []any) (pgx.BatchResults, error) {
	return opened(db.sendScoped(ctx, tenant, batchOf(sql, args)))
}

// batchOf is a batch of sql alone.
func batchOf(sql string, args []any) *pgx.Batch {
	b := &pgx.Batch{}
	b.Queue(sql, args...)
	return b
}

// opened returns br, or the error it failed with before the caller's
// first statement.
func opened(br pgx.BatchResults) (pgx.BatchResults, error) {
	if eb, ok := br.(errBatch); ok {
		return nil, eb.err
	}
	return br, nil
}

// pastHead reads the results of br's first head statements, those that
// name the tenant, and returns br at the caller's first; a failure among
// them is an errBatch.
func pastHead(br pgx.BatchResults, head int) pgx.BatchResults {
	for range head {
		if _, err := br.Exec(); err != nil {
			br.Close()
			return errBatch{fmt.Errorf("set tenant: %w", err)}
		}
	}
	return br
}

// sendScoped sends b after the statements that name tenant, and returns
// the batch at b's first result; on a Citus coordinator b is wrapped in a
// transaction block whose COMMIT the batch's Close reads. A statement that
// fails there leaves its connection in the failed block (the server skips
// the COMMIT): the pool closes such a connection when it is given back.
func (db *DB) sendScoped(ctx context.Context, tenant string, b *pgx.Batch) pgx.BatchResults {
	scoped := &pgx.Batch{}
	head := 1
	if db.distributed {
		scoped.Queue("BEGIN")
		scoped.Queue(setTenantDistributed, tenant)
		head = 2
	} else {
		scoped.Queue(setTenant, tenant)
	}
	scoped.QueuedQueries = append(scoped.QueuedQueries, b.QueuedQueries...)
	if db.distributed {
		scoped.Queue("COMMIT")
	}
	return pastHead(db.pool.SendBatch(ctx, scoped), head)
}

// QueryRow runs sql in ctx's tenant; the row's Scan reports its errors.
func (db *DB) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return firstRow(db.Query(ctx, sql, args...))
}

// firstRow is the first of rows, as QueryRow gives it.
func firstRow(rows pgx.Rows, err error) pgx.Row {
	if err != nil {
		return errRow{err}
	}
	return rowOf{rows}
}

// SendBatch sends b in ctx's tenant: the tenant is set first, in the
// batch's implicit transaction, and its result consumed before the
// caller's.
func (db *DB) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	tenant, ok := yakor.TenantFrom(ctx)
	if !ok {
		return db.pool.SendBatch(ctx, b)
	}
	return db.sendScoped(ctx, tenant, b)
}

// ReadOnly reports whether the database takes no writes: a standby in
// recovery, or read-only by default (default_transaction_read_only).
func (db *DB) ReadOnly(ctx context.Context) (bool, error) {
	var ro bool
	err := db.pool.QueryRow(ctx, `SELECT pg_is_in_recovery() OR current_setting('transaction_read_only')::bool`).Scan(&ro)
	return ro, Wrap("check read-only", err)
}

// Begin starts a transaction in ctx's tenant. The tenant is named with the
// transaction's first statement, in one batch with it: a transaction costs
// no round trip for its tenant.
func (db *DB) Begin(ctx context.Context) (pgx.Tx, error) {
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	tenant, ok := yakor.TenantFrom(ctx)
	if !ok {
		return tx, nil
	}
	set := setTenant
	if db.distributed {
		set = setTenantDistributed
	}
	return &tenantTx{Tx: tx, set: set, tenant: tenant}, nil
}

// batchRows are a batch's query rows; closing them, or reading past the
// last, ends the batch and gives its connection back, as a pool's rows do.
type batchRows struct {
	pgx.Rows
	br pgx.BatchResults
}

func (r *batchRows) Next() bool {
	if r.Rows.Next() {
		return true
	}
	r.Close()
	return false
}

func (r *batchRows) Close() {
	r.Rows.Close()
	_ = r.br.Close()
}

// rowOf is the first row of rows, as pgx's QueryRow gives it.
type rowOf struct{ rows pgx.Rows }

func (r rowOf) Scan(dest ...any) error {
	defer r.rows.Close()
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return err
		}
		return pgx.ErrNoRows
	}
	if err := r.rows.Scan(dest...); err != nil {
		return err
	}
	r.rows.Close()
	return r.rows.Err()
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// errBatch is a batch that failed before the caller's first statement.
type errBatch struct{ err error }

func (b errBatch) Exec() (pgconn.CommandTag, error) { return pgconn.CommandTag{}, b.err }
func (b errBatch) Query() (pgx.Rows, error)         { return nil, b.err }
func (b errBatch) QueryRow() pgx.Row                { return errRow{b.err} }
func (b errBatch) Close() error                     { return b.err }
func (b errBatch) Tx() pgx.Tx                       { return nil }
