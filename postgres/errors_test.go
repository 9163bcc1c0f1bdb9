package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"yakor"
	"yakor/postgres"
	"yakor/postgres/pgtest"
)

// TestWrapStorage: a database that cannot store (disk full, an I/O error,
// a read-only file system, a read-only transaction) is EUNAVAILABLE with a
// message saying so; other errors, a privilege refusal among them, stay
// internal.
func TestWrapStorage(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  *pgconn.PgError
		code string
		msg  string
	}{
		{"DiskFull", &pgconn.PgError{Code: "53100", Message: `could not extend file "base/16384/17361": No space left on device`, File: "md.c"}, yakor.EUNAVAILABLE, postgres.MsgDiskFull},
		{"IOError", &pgconn.PgError{Code: "58030", Message: `could not write to file "pg_wal/xlogtemp.42": Input/output error`, File: "xlog.c"}, yakor.EUNAVAILABLE, postgres.MsgCannotWrite},
		{"ReadOnlyFS", &pgconn.PgError{Code: "42501", Message: `could not extend file "base/16384/17361": Read-only file system`, File: "md.c"}, yakor.EUNAVAILABLE, postgres.MsgCannotWrite},
		{"ReadOnlyTx", &pgconn.PgError{Code: "25006", Message: "cannot execute INSERT in a read-only transaction", File: "utility.c"}, yakor.EUNAVAILABLE, postgres.MsgReadOnly},
		{"RowSecurity", &pgconn.PgError{Code: "42501", Message: `new row violates row-level security policy for table "messages"`, File: "execMain.c"}, yakor.EINTERNAL, "internal error"},
		{"Unique", &pgconn.PgError{Code: "23505", Message: "duplicate key value", File: "nbtinsert.c"}, yakor.EINTERNAL, "internal error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := postgres.Wrap("append message", tc.err)
			if yakor.ErrorCode(err) != tc.code || yakor.ErrorMessage(err) != tc.msg || !errors.Is(err, tc.err) {
				t.Fatalf("%v: code %q, message %q; want %q, %q", err, yakor.ErrorCode(err), yakor.ErrorMessage(err), tc.code, tc.msg)
			}
		})
	}
}

// TestWrapConnectionLost: a server that closes the connection mid-query
// (it crashed) is unavailable, not an internal error.
func TestWrapConnectionLost(t *testing.T) {
	for _, cause := range []error{io.ErrUnexpectedEOF, fmt.Errorf("commit: %w", io.EOF)} {
		if err := postgres.Wrap("send", cause); yakor.ErrorCode(err) != yakor.EUNAVAILABLE || yakor.ErrorMessage(err) != postgres.MsgUnavailable {
			t.Fatalf("%v: %s %q", cause, yakor.ErrorCode(err), yakor.ErrorMessage(err))
		}
	}
}

// TestWrapTwice: an error wrapped by a store inside a transaction and again
// around it says the reason once.
func TestWrapTwice(t *testing.T) {
	err := postgres.Wrap("store reply", postgres.Wrap("append message", io.ErrUnexpectedEOF))
	if yakor.ErrorCode(err) != yakor.EUNAVAILABLE || strings.Count(err.Error(), postgres.MsgUnavailable) != 1 {
		t.Fatalf("%s: %q", yakor.ErrorCode(err), err)
	}
}

// TestWrapStorageServer: the codes come from a real server: writing in a
// read-only transaction is the database refusing to store; a role's
// missing privilege (42501 too, but not from the storage layer) is not.
func TestWrapStorageServer(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.New(t)
	err := pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO tenants (name) VALUES ('read-only')`)
		return err
	})
	if err = postgres.Wrap("insert", err); yakor.ErrorCode(err) != yakor.EUNAVAILABLE || yakor.ErrorMessage(err) != postgres.MsgReadOnly {
		t.Fatalf("read-only transaction: %v (%s)", err, yakor.ErrorCode(err))
	}
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL ROLE yakor_service`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `CREATE TABLE not_allowed (id int)`)
		return err
	})
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "42501" {
		t.Fatalf("create table as yakor_service: %v, want 42501", err)
	}
	if err = postgres.Wrap("create", err); yakor.ErrorCode(err) != yakor.EINTERNAL {
		t.Fatalf("a missing privilege is %s: %v", yakor.ErrorCode(err), err)
	}
}

// TestUnavailable: the ways a database going away shows in an error are
// unavailable (503, retry), a failing statement or a canceled request is not.
func TestUnavailable(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"refused", &net.OpError{Op: "dial", Net: "unix", Err: syscall.ECONNREFUSED}, true},
		{"admin shutdown", &pgconn.PgError{Code: "57P01"}, true},
		{"starting up", &pgconn.PgError{Code: "57P03"}, true},
		{"connection failure", &pgconn.PgError{Code: "08006"}, true},
		{"cut off (immediate shutdown)", fmt.Errorf("append message: %w", io.ErrUnexpectedEOF), true},
		{"connection closed before", fmt.Errorf("finish turn: %w", pgconn.ErrConnClosed), true},
		{"shard moved (Citus)", &pgconn.PgError{Code: "XX000", Message: "could not find valid entry for shard 102028"}, true},
		{"intermediate result dropped (Citus)", &pgconn.PgError{Code: "CIINF", Message: `Query could not find the intermediate result file "99_1"`}, true},
		{"another internal error", &pgconn.PgError{Code: "XX000", Message: "cache lookup failed"}, false},
		{"unique violation", &pgconn.PgError{Code: "23505"}, false},
		{"deadlock", &pgconn.PgError{Code: "40P01"}, false},
		{"canceled", fmt.Errorf("query: %w", context.Canceled), false},
		{"other", errors.New("boom"), false},
		{"nil", nil, false},
	} {
		if got := postgres.Unavailable(tc.err); got != tc.want {
			t.Errorf("%s: Unavailable = %v, want %v", tc.name, got, tc.want)
		}
		if tc.err != nil {
			wantCode := yakor.EINTERNAL
			if tc.want {
				wantCode = yakor.EUNAVAILABLE
			}
			if code := yakor.ErrorCode(postgres.Wrap("op", tc.err)); code != wantCode {
				t.Errorf("%s: Wrap's code %q, want %q", tc.name, code, wantCode)
			}
		}
	}
}

// TestNoRows: NotFound and Found are the one reading of "no rows": no rows
// is the caller's not-found error (as it is) or absent; any other failure
// is wrapped with the operation as Wrap does; nil is nil.
func TestNoRows(t *testing.T) {
	notFound := yakor.Errorf(yakor.ENOTFOUND, "thread %q not found", "t1")
	boom := errors.New("boom")
	refused := &net.OpError{Op: "dial", Net: "unix", Err: syscall.ECONNREFUSED}
	for _, tc := range []struct {
		name      string
		err       error
		notFound  error // NotFound's answer; nil: nil
		found     bool
		wrapped   error  // the cause in the chain of both answers; nil: none
		code, msg string // the code and message of a wrapped failure
	}{
		{name: "found", err: nil, found: true},
		{name: "no rows", err: pgx.ErrNoRows, notFound: notFound},
		{name: "no rows, wrapped", err: fmt.Errorf("scan: %w", pgx.ErrNoRows), notFound: notFound},
		{name: "failure", err: boom, wrapped: boom, code: yakor.EINTERNAL, msg: "internal error"},
		{name: "unavailable", err: refused, wrapped: refused, code: yakor.EUNAVAILABLE, msg: postgres.MsgUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := postgres.NotFound("find thread", tc.err, notFound)
			found, ferr := postgres.Found("find thread", tc.err)
			if found != tc.found {
				t.Errorf("Found = %v, want %v", found, tc.found)
			}
			if tc.wrapped == nil {
				if err != tc.notFound {
					t.Errorf("NotFound = %v, want %v", err, tc.notFound)
				}
				if ferr != nil {
					t.Errorf("Found's error = %v, want nil", ferr)
				}
				return
			}
			for name, err := range map[string]error{"NotFound": err, "Found": ferr} {
				if !errors.Is(err, tc.wrapped) || err.Error() != postgres.Wrap("find thread", tc.wrapped).Error() ||
					yakor.ErrorCode(err) != tc.code || yakor.ErrorMessage(err) != tc.msg {
					t.Errorf("%s = %v (%s %q), want Wrap's %s %q", name, err, yakor.ErrorCode(err), yakor.ErrorMessage(err), tc.code, tc.msg)
				}
			}
		})
	}
}

// TestNoRowsServer: what pgx answers for a row a real server does not
// have, by QueryRow or by CollectExactlyOneRow, is what NotFound and Found
// read as no rows.
func TestNoRowsServer(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.New(t)
	notFound := yakor.Errorf(yakor.ENOTFOUND, "tenant not found")
	var name string
	err := pool.QueryRow(ctx, `SELECT name FROM tenants WHERE false`).Scan(&name)
	if got := postgres.NotFound("find tenant", err, notFound); got != notFound {
		t.Errorf("QueryRow: NotFound = %v", got)
	}
	rows, err := pool.Query(ctx, `SELECT name FROM tenants WHERE false`)
	if err != nil {
		t.Fatal(err)
	}
	_, err = pgx.CollectExactlyOneRow(rows, pgx.RowTo[string])
	if found, err := postgres.Found("find tenant", err); found || err != nil {
		t.Errorf("CollectExactlyOneRow: Found = %v, %v", found, err)
	}
	err = pool.QueryRow(ctx, `SELECT 'x'`).Scan(&name)
	if found, err := postgres.Found("find tenant", err); !found || err != nil {
		t.Errorf("a row: Found = %v, %v", found, err)
	}
}
