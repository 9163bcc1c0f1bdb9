package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/jackc/pgx/v5/pgconn"

	"yakor"
)

// Unavailable reports whether err means the database could not be reached or
// went away mid-query (connection refused or reset, server shutting down), as
// opposed to a bug or a constraint violation. Stores use it to turn such
// failures into yakor.EUNAVAILABLE.
func Unavailable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// Class 08: connection exception; 57P01..57P03: admin shutdown, crash shutdown, cannot connect now.
		return len(pgErr.Code) == 5 && (pgErr.Code[:2] == "08" || pgErr.Code == "57P01" || pgErr.Code == "57P02" || pgErr.Code == "57P03")
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return true
	}
	var connErr *pgconn.ConnectError
	return errors.As(err, &connErr) || pgconn.SafeToRetry(err)
}

// IsUniqueViolation reports whether err is a unique_violation (23505).
func IsUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}

// Wrap adds the operation to err and, when the database could not be
// reached, puts an EUNAVAILABLE *yakor.Error in the chain so the client is
// told to retry rather than shown an internal error. Wrap(op, nil) is nil.
func Wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if Unavailable(err) {
		return fmt.Errorf("%s: %w: %w", op, yakor.Errorf(yakor.EUNAVAILABLE, "the database is unavailable; try again shortly"), err)
	}
	return fmt.Errorf("%s: %w", op, err)
}
