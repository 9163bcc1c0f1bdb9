package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"yakor"
)

// Unavailable reports whether err means the database could not be reached or
// went away mid-query (connection refused, reset or closed, server shutting
// down), as opposed to a bug or a constraint violation. Stores use it to
// turn such failures into yakor.EUNAVAILABLE.
func Unavailable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// Class 08: connection exception; 57P01..57P03: admin shutdown, crash shutdown, cannot connect now.
		return len(pgErr.Code) == 5 && (pgErr.Code[:2] == "08" || pgErr.Code == "57P01" || pgErr.Code == "57P02" || pgErr.Code == "57P03") || Moved(err)
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return true
	}
	// The server closed the connection mid-query: it crashed (a PANIC,
	// say on a disk that turned read-only) or was killed.
	// A connection closed by such an earlier failure refuses what follows.
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, pgconn.ErrConnClosed) {
		return true
	}
	var connErr *pgconn.ConnectError
	return errors.As(err, &connErr) || pgconn.SafeToRetry(err)
}

// Moved reports whether err is Citus refusing a statement whose shard
// moved or split while it was planned (a tenant isolated or rebalanced):
// the statement wrote nothing, and sent again it finds the new placement.
func Moved(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	// CIINF: an intermediate result of the statement's plan was dropped
	// with the shard it was planned for.
	return pgErr.Code == "CIINF" || pgErr.Code == "XX000" &&
		(strings.HasPrefix(pgErr.Message, "could not find valid entry for shard ") ||
			strings.HasPrefix(pgErr.Message, "could not find length of shard "))
}

// IsUniqueViolation reports whether err is a unique_violation (23505).
func IsUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}

// IsForeignKeyViolation reports whether err is a foreign_key_violation (23503).
func IsForeignKeyViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23503"
}

// Messages of the EUNAVAILABLE errors Wrap puts in the chain.
const (
	MsgUnavailable = "the database is unavailable; try again shortly"
	MsgDiskFull    = "the database's disk is full: it stores nothing more until space is freed on it"
	MsgCannotWrite = "the database cannot write to its disk (read-only or failing): it stores nothing more until it can"
	MsgReadOnly    = "the database is read-only (a standby, or set read-only): it cannot store anything"
)

// storageFiles are PostgreSQL's source files whose file-access errors
// (errcode_for_file_access) are about its storage: there a read-only or
// unwritable file system comes back as 42501 insufficient_privilege, the
// code that elsewhere means a permission or row-level security refusal.
var storageFiles = []string{"md.c", "fd.c", "xlog.c", "slru.c", "relmapper.c", "copydir.c", "buffile.c", "bufmgr.c", "smgr.c"}

// Storage returns the message for an error of the database's storage: its
// disk full (53100), an I/O error (58030), a file it may not write (42501
// from the storage layer: a read-only file system), or a read-only
// transaction (25006, a standby); "" for any other error.
func Storage(err error) string {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return ""
	}
	switch {
	case pgErr.Code == "53100":
		return MsgDiskFull
	case pgErr.Code == "58030", pgErr.Code == "42501" && slices.Contains(storageFiles, pgErr.File):
		return MsgCannotWrite
	case pgErr.Code == "25006":
		return MsgReadOnly
	}
	return ""
}

// Wrap adds the operation to err and, when the database could not be
// reached or cannot store (Storage), puts an EUNAVAILABLE *yakor.Error in
// the chain so the client is told why and to retry later rather than shown
// an internal error. Wrap(op, nil) is nil.
func Wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if yakor.ErrorCode(err) == yakor.EUNAVAILABLE {
		// Wrapped already (a store's Wrap inside a transaction's): the
		// reason is said once.
		return fmt.Errorf("%s: %w", op, err)
	}
	if msg := Storage(err); msg != "" {
		return fmt.Errorf("%s: %w: %w", op, yakor.Errorf(yakor.EUNAVAILABLE, "%s", msg), err)
	}
	if Unavailable(err) {
		return fmt.Errorf("%s: %w: %w", op, yakor.Errorf(yakor.EUNAVAILABLE, MsgUnavailable), err)
	}
	if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) && (pe.Code == "22021" || pe.Code == "22P05") {
		// character_not_in_repertoire, untranslatable_character: input
		// that reached the database unchecked.
		return fmt.Errorf("%s: %w: %w", op, yakor.Errorf(yakor.EINVALID, "the text holds a character the database cannot store (a NUL, or invalid UTF-8)"), err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// NotFound is the error of a query for one row that must be there, for op:
// nil when err is nil, notFound when the query found no row
// (pgx.ErrNoRows), and Wrap(op, err) for any other failure. With Found, it
// is the one place a store interprets "no rows":
//
//	t, err := pgx.CollectExactlyOneRow(rows, scanTrace)
//	if err != nil {
//		return Trace{}, postgres.NotFound("find turn", err, yakor.Errorf(yakor.ENOTFOUND, "turn %q not found", id))
//	}
//
// notFound is returned as it is, unwrapped: its code and message are the
// client's answer.
func NotFound(op string, err, notFound error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return notFound
	}
	return Wrap(op, err)
}

// Found interprets the error of a query for a row that may be absent, for
// op: found is true when err is nil; false with a nil error when the query
// found no row (pgx.ErrNoRows); false with Wrap(op, err) for any other
// failure.
//
//	err := db.QueryRow(ctx, q, id).Scan(&cursor)
//	if _, err := postgres.Found("read cursor", err); err != nil {
//		return err // absent, the cursor stays zero
//	}
func Found(op string, err error) (found bool, _ error) {
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return err == nil, Wrap(op, err)
}
