package account

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"yakor"
	"yakor/postgres"
)

// Role is what an API key may do.
type Role string

// The roles of a key.
const (
	// RoleAdmin administers its tenant: every user's memory, and the keys.
	RoleAdmin Role = "admin"
	// RoleBackend is an app's server: it acts for any end user of its
	// tenant, named per request (X-Yakor-User, or /v1's user field).
	RoleBackend Role = "backend"
	// RoleUser is bound to its one user.
	RoleUser Role = "user"
)

// Valid reports whether r is one of the roles.
func (r Role) Valid() bool { return r == RoleAdmin || r == RoleBackend || r == RoleUser }

// ActsForUsers reports whether a key of role r may act for any end user of
// its tenant.
func (r Role) ActsForUsers() bool { return r == RoleAdmin || r == RoleBackend }

// MaxExternalID bounds an end user's id from the app (X-Yakor-User).
const MaxExternalID = 200

// ValidExternalID checks an app's id for an end user: not blank, at most
// MaxExternalID characters, no control characters.
func ValidExternalID(id string) error {
	switch {
	case strings.TrimSpace(id) == "":
		return yakor.Errorf(yakor.EINVALID, "the end user's id is blank")
	case !utf8.ValidString(id):
		return yakor.Errorf(yakor.EINVALID, "the end user's id is not valid UTF-8")
	case utf8.RuneCountInString(id) > MaxExternalID:
		return yakor.Errorf(yakor.EINVALID, "the end user's id is %d characters long; at most %d", utf8.RuneCountInString(id), MaxExternalID)
	case strings.ContainsFunc(id, unicode.IsControl):
		return yakor.Errorf(yakor.EINVALID, "the end user's id contains a control character")
	}
	return nil
}

// querier is a pool or a transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// FindEndUser returns the id of the tenant's user whose app id is
// externalID. ENOTFOUND when there is none.
func (s *Store) FindEndUser(ctx context.Context, tenantID, externalID string) (string, error) {
	if err := ValidExternalID(externalID); err != nil {
		return "", err
	}
	var id string
	err := s.pool.QueryRow(ctx, `SELECT id::text FROM users WHERE tenant_id = $1 AND external_id = $2`, tenantID, externalID).Scan(&id)
	return id, postgres.NotFound("find end user", err, yakor.Errorf(yakor.ENOTFOUND, "no user %q in this tenant", externalID))
}

// EnsureEndUser returns the id of the tenant's user whose app id is
// externalID, making the user on first sight.
func (s *Store) EnsureEndUser(ctx context.Context, tenantID, externalID string) (string, error) {
	if err := ValidExternalID(externalID); err != nil {
		return "", err
	}
	id, err := ensureUser(ctx, s.pool, tenantID, externalID)
	return id, postgres.Wrap("ensure end user", err)
}

// ensureUser finds or makes the tenant's user with the app id externalID
// (named after it). Two requests making the same user at once both get the
// one row: the insert of the loser does nothing, and the select after it
// sees the winner's committed row.
func ensureUser(ctx context.Context, q querier, tenantID, externalID string) (string, error) {
	const find = `SELECT id::text FROM users WHERE tenant_id = $1 AND external_id = $2`
	var id string
	err := q.QueryRow(ctx, find, tenantID, externalID).Scan(&id)
	if found, err := postgres.Found("find user", err); err != nil || found {
		return id, err
	}
	_, err = q.Exec(ctx, `INSERT INTO users (tenant_id, id, name, external_id) VALUES ($1, $2, $3, $3)
ON CONFLICT (tenant_id, external_id) WHERE external_id IS NOT NULL DO NOTHING`, tenantID, uuid.NewString(), externalID)
	if err != nil {
		return "", fmt.Errorf("make user: %w", err)
	}
	return id, q.QueryRow(ctx, find, tenantID, externalID).Scan(&id)
}
