// Package account owns tenants, users and projects: the keys every other
// table is scoped by. It writes tables tenants, users and projects.
package account

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"yakor"
)

// Local ids: the one tenant and user a server serves when it listens on a
// loopback address with no API keys configured.
const (
	LocalTenantID = "00000000-0000-4000-8000-000000000001"
	LocalUserID   = "00000000-0000-4000-8000-000000000001"
)

// Store reads and writes accounts.
type Store struct {
	pool *pgxpool.Pool
}

// NewStore returns a Store on pool.
func NewStore(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

// EnsureLocal creates the local tenant and user if they are missing and
// returns their scope.
func (s *Store) EnsureLocal(ctx context.Context) (yakor.Scope, error) {
	// Two statements: the user row references the tenant row, which a
	// sibling CTE's insert does not make visible to the foreign key check.
	if _, err := s.pool.Exec(ctx, `INSERT INTO tenants (id, name) VALUES ($1, 'local') ON CONFLICT (id) DO NOTHING`, LocalTenantID); err != nil {
		return yakor.Scope{}, fmt.Errorf("ensure local tenant: %w", err)
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO users (tenant_id, id, name, external_id) VALUES ($1, $2, 'local', 'local') ON CONFLICT (tenant_id, id) DO NOTHING`, LocalTenantID, LocalUserID); err != nil {
		return yakor.Scope{}, fmt.Errorf("ensure local user: %w", err)
	}
	return yakor.Scope{TenantID: LocalTenantID, UserID: LocalUserID}, nil
}

// CreateTenantUser creates a tenant with one user and returns its scope. Tests
// use it to prove isolation between tenants.
func (s *Store) CreateTenantUser(ctx context.Context, name string) (yakor.Scope, error) {
	scope := yakor.Scope{TenantID: uuid.NewString(), UserID: uuid.NewString()}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return yakor.Scope{}, fmt.Errorf("create tenant: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	if _, err := tx.Exec(ctx, `INSERT INTO tenants (id, name) VALUES ($1, $2)`, scope.TenantID, name); err != nil {
		return yakor.Scope{}, fmt.Errorf("create tenant: %w", err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO users (tenant_id, id, name) VALUES ($1, $2, $3)`, scope.TenantID, scope.UserID, name); err != nil {
		return yakor.Scope{}, fmt.Errorf("create tenant user: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return yakor.Scope{}, fmt.Errorf("create tenant: %w", err)
	}
	return scope, nil
}

// EnsureProject returns the id of the tenant's project called name, creating
// it if needed. Names are trimmed; an empty name is refused.
func (s *Store) EnsureProject(ctx context.Context, scope yakor.Scope, name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", yakor.Errorf(yakor.EINVALID, "project name is empty")
	}
	if len([]rune(name)) > 200 {
		return "", yakor.Errorf(yakor.EINVALID, "project name is longer than 200 characters")
	}
	if err := printable("project name", name); err != nil {
		return "", err
	}
	const q = `
WITH ins AS (
    INSERT INTO projects (tenant_id, id, name) VALUES ($1, $2, $3)
    ON CONFLICT (tenant_id, name) DO NOTHING
    RETURNING id
)
SELECT id::text FROM ins
UNION ALL
SELECT id::text FROM projects WHERE tenant_id = $1 AND name = $3
LIMIT 1`
	var id string
	if err := s.pool.QueryRow(ctx, q, scope.TenantID, uuid.NewString(), name).Scan(&id); err != nil {
		return "", fmt.Errorf("ensure project: %w", err)
	}
	return id, nil
}

// printable refuses a name PostgreSQL cannot store or a log would garble:
// invalid UTF-8 or a control character (a NUL among them).
func printable(field, s string) error {
	if !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl) {
		return yakor.Errorf(yakor.EINVALID, "%s holds a control character or invalid UTF-8", field)
	}
	return nil
}
