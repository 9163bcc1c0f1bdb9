package account

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/postgres"
)

// Key is an API key as listed: never the key itself.
type Key struct {
	ID            string     `json:"id"`
	TenantID      string     `json:"tenant_id"`
	TenantName    string     `json:"tenant"`
	UserID        string     `json:"user_id"`
	UserName      string     `json:"user"`
	Name          string     `json:"name"`
	Prefix        string     `json:"prefix"` // the key's first characters, to tell keys apart
	RatePerMinute int        `json:"rate_per_minute"`
	MaxTurns      int        `json:"max_turns"`
	Role          Role       `json:"role"`
	CreatedAt     time.Time  `json:"created_at"`
	RevokedAt     *time.Time `json:"revoked_at"`
	LastUsedAt    *time.Time `json:"last_used_at"`
}

// NewKey says what key to make.
type NewKey struct {
	Tenant        string // tenant name; made when missing
	TenantID      string // an existing tenant's id, instead of Tenant
	User          string // user name within the tenant; made when missing; "" names it after the key
	UserID        string // an existing user's id, instead of User
	Name          string // a label
	RatePerMinute int    // requests a minute; 0: 120
	MaxTurns      int    // turns at once; 0: 4
	Role          Role   // what the key may do; "": user
}

// Bounds of a key's fields.
const (
	MaxRatePerMinute = 100000
	MaxKeyTurns      = 1000
	maxKeyName       = 200
)

// KeyFilter narrows a listing of keys; empty fields do not narrow it.
type KeyFilter struct {
	ID       string
	TenantID string
}

// keyPrefix starts every key, so a leaked one is recognisable.
const keyPrefix = "yk_"

// CreateKey makes an API key and returns it with its secret, which is
// shown this once: only its hash is stored. EINVALID: no tenant, a limit
// out of range, a name too long; ENOTFOUND: TenantID or UserID names no
// such tenant or user. Nothing is written when it fails.
func (s *Store) CreateKey(ctx context.Context, nk NewKey) (Key, string, error) {
	if err := nk.normalize(); err != nil {
		return Key{}, "", err
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return Key{}, "", fmt.Errorf("create key: %w", err)
	}
	secret := keyPrefix + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(raw))
	id := uuid.NewString()
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tenant, user, err := keyOwner(ctx, tx, nk)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO api_keys (tenant_id, id, user_id, name, prefix, hash, rate_per_minute, max_turns, role)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, tenant, id, user, nk.Name, secret[:len(keyPrefix)+6], hashKey(secret), nk.RatePerMinute, nk.MaxTurns, nk.Role)
		return err
	})
	if err != nil {
		return Key{}, "", postgres.Wrap("create key", err)
	}
	keys, err := s.Keys(ctx, KeyFilter{ID: id})
	if err != nil || len(keys) != 1 {
		return Key{}, "", fmt.Errorf("create key: read it back: %w", err)
	}
	return keys[0], secret, nil
}

// normalize trims nk's names, fills in the defaults and checks the bounds.
func (nk *NewKey) normalize() error {
	nk.Tenant, nk.User, nk.Name = strings.TrimSpace(nk.Tenant), strings.TrimSpace(nk.User), strings.TrimSpace(nk.Name)
	if nk.Tenant == "" && nk.TenantID == "" {
		return yakor.Errorf(yakor.EINVALID, "a key needs a tenant name")
	}
	for _, id := range []string{nk.TenantID, nk.UserID} {
		if _, err := uuid.Parse(id); id != "" && err != nil {
			return yakor.Errorf(yakor.ENOTFOUND, "%q names no tenant or user", id)
		}
	}
	for _, f := range []struct{ field, value string }{{"tenant", nk.Tenant}, {"user", nk.User}, {"name", nk.Name}} {
		if n := utf8.RuneCountInString(f.value); n > maxKeyName {
			return yakor.Errorf(yakor.EINVALID, "%s is %d characters long; at most %d", f.field, n, maxKeyName)
		}
		if err := printable(f.field, f.value); err != nil {
			return err
		}
	}
	if nk.Role == "" {
		nk.Role = RoleUser
	}
	if !nk.Role.Valid() {
		return yakor.Errorf(yakor.EINVALID, "role must be admin, backend or user, not %q", nk.Role)
	}
	if nk.RatePerMinute < 0 || nk.RatePerMinute > MaxRatePerMinute {
		return yakor.Errorf(yakor.EINVALID, "rate_per_minute must be between 1 and %d requests a minute, not %d", MaxRatePerMinute, nk.RatePerMinute)
	}
	if nk.MaxTurns < 0 || nk.MaxTurns > MaxKeyTurns {
		return yakor.Errorf(yakor.EINVALID, "max_turns must be between 1 and %d turns at once, not %d", MaxKeyTurns, nk.MaxTurns)
	}
	if nk.User == "" && nk.UserID == "" {
		nk.User = nk.Name
	}
	if nk.User == "" && nk.UserID == "" {
		nk.User = "api"
	}
	if nk.RatePerMinute == 0 {
		nk.RatePerMinute = 120
	}
	if nk.MaxTurns == 0 {
		nk.MaxTurns = 4
	}
	return nil
}

// keyOwner finds (or makes) the tenant and the user a new key acts as.
func keyOwner(ctx context.Context, tx pgx.Tx, nk NewKey) (tenant, user string, err error) {
	var found bool
	if nk.TenantID != "" {
		err = tx.QueryRow(ctx, `SELECT id::text FROM tenants WHERE id = $1`, nk.TenantID).Scan(&tenant)
		err = postgres.NotFound("find tenant", err, yakor.Errorf(yakor.ENOTFOUND, "tenant %q not found", nk.TenantID))
	} else {
		err = tx.QueryRow(ctx, `SELECT id::text FROM tenants WHERE name = $1 ORDER BY created_at LIMIT 1`, nk.Tenant).Scan(&tenant)
		if found, err = postgres.Found("find tenant", err); err == nil && !found {
			tenant = uuid.NewString()
			_, err = tx.Exec(ctx, `INSERT INTO tenants (id, name) VALUES ($1, $2)`, tenant, nk.Tenant)
		}
	}
	if err != nil {
		return "", "", err
	}
	if nk.UserID != "" {
		err = tx.QueryRow(ctx, `SELECT id::text FROM users WHERE tenant_id = $1 AND id = $2`, tenant, nk.UserID).Scan(&user)
		return tenant, user, postgres.NotFound("find user", err, yakor.Errorf(yakor.ENOTFOUND, "user %q not found in the key's tenant", nk.UserID))
	}
	user, err = ensureUser(ctx, tx, tenant, nk.User)
	return tenant, user, err
}

func hashKey(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// Keys lists the API keys f selects, newest first. With no TenantID it is
// an operator's view across tenants.
func (s *Store) Keys(ctx context.Context, f KeyFilter) ([]Key, error) {
	const q = `SELECT k.id::text AS id, k.tenant_id::text AS tenant_id, t.name AS tenant_name, k.user_id::text AS user_id, u.name AS user_name,
    k.name, k.prefix, k.rate_per_minute, k.max_turns, k.role, k.created_at, k.revoked_at, k.last_used_at
FROM api_keys k JOIN tenants t ON t.id = k.tenant_id JOIN users u ON u.tenant_id = k.tenant_id AND u.id = k.user_id
WHERE ($1 = '' OR k.id::text = $1) AND ($2 = '' OR k.tenant_id::text = $2) ORDER BY k.created_at DESC, k.id`
	rows, err := s.pool.Query(ctx, q, f.ID, f.TenantID)
	if err != nil {
		return nil, postgres.Wrap("list keys", err)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowToStructByName[Key])
	return keys, postgres.Wrap("list keys", err)
}

// RevokeKey revokes a key of any tenant for good (an operator's act):
// requests with it are refused from now on. ENOTFOUND: no such key.
func (s *Store) RevokeKey(ctx context.Context, id string) error {
	if _, err := uuid.Parse(id); err != nil {
		return yakor.Errorf(yakor.ENOTFOUND, "key %q not found", id)
	}
	tag, err := s.pool.Exec(ctx, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1`, id)
	if err != nil {
		return postgres.Wrap("revoke key", err)
	}
	if tag.RowsAffected() == 0 {
		return yakor.Errorf(yakor.ENOTFOUND, "key %q not found", id)
	}
	return nil
}

// RevokeTenantKey revokes the tenant's key id for good and returns it;
// revoking a revoked key changes nothing. ENOTFOUND: the tenant has no
// such key (another tenant's key is not found either).
func (s *Store) RevokeTenantKey(ctx context.Context, tenantID, id string) (Key, error) {
	_, terr := uuid.Parse(tenantID)
	if _, err := uuid.Parse(id); err != nil || terr != nil {
		return Key{}, yakor.Errorf(yakor.ENOTFOUND, "key %q not found", id)
	}
	tag, err := s.pool.Exec(ctx, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE tenant_id = $1 AND id = $2`, tenantID, id)
	if err != nil {
		return Key{}, postgres.Wrap("revoke key", err)
	}
	if tag.RowsAffected() == 0 {
		return Key{}, yakor.Errorf(yakor.ENOTFOUND, "key %q not found", id)
	}
	keys, err := s.Keys(ctx, KeyFilter{ID: id, TenantID: tenantID})
	if err != nil || len(keys) != 1 {
		return Key{}, fmt.Errorf("revoke key: read it back: %w", err)
	}
	return keys[0], nil
}

// Caller is who a request acts for: the key's scope and limits.
type Caller struct {
	KeyID         string
	Scope         yakor.Scope
	RatePerMinute int
	MaxTurns      int
	Role          Role
}

// Authenticate finds the live key secret names: a read, so that a
// read-only database still serves reads (MarkUsed records the use).
// EUNAUTHORIZED: no such key, or it was revoked.
func (s *Store) Authenticate(ctx context.Context, secret string) (Caller, error) {
	var c Caller
	var revoked *time.Time
	err := s.pool.QueryRow(ctx, `SELECT id::text, tenant_id::text, user_id::text, rate_per_minute, max_turns, role, revoked_at
FROM api_keys WHERE hash = $1`, hashKey(secret)).
		Scan(&c.KeyID, &c.Scope.TenantID, &c.Scope.UserID, &c.RatePerMinute, &c.MaxTurns, &c.Role, &revoked)
	if err != nil {
		return Caller{}, postgres.NotFound("authenticate", err, yakor.Errorf(yakor.EUNAUTHORIZED, "the API key is not valid"))
	}
	if revoked != nil {
		return Caller{}, yakor.Errorf(yakor.EUNAUTHORIZED, "the API key was revoked on %s", revoked.UTC().Format(time.RFC3339))
	}
	return c, nil
}

// HasKeys reports whether any key was ever made: from then on every request
// needs a live one (revoking them all does not reopen the server).
func (s *Store) HasKeys(ctx context.Context) (bool, error) {
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM api_keys)`).Scan(&ok)
	return ok, postgres.Wrap("check keys", err)
}

// MarkUsed records that the key of id was used now (last_used_at).
func (s *Store) MarkUsed(ctx context.Context, id string) error {
	_, err := s.pool.Exec(ctx, `UPDATE api_keys SET last_used_at = now() WHERE id = $1`, id)
	return postgres.Wrap("mark key used", err)
}
