// Package pgtest gives each test its own freshly migrated database on the
// PostgreSQL server named by TEST_DATABASE_URL (`make test` starts one and
// sets it), and the distributed tests the Citus coordinator TEST_CITUS_URL
// names ([CitusURL]). A test that needs PostgreSQL and finds no server fails; it never
// skips. Databases are cloned from a template migrated once per schema
// version, and dropped when the test ends.
package pgtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"yakor/migrations"
	"yakor/postgres"
)

// URL returns TEST_DATABASE_URL, failing the test when it is not set.
func URL(tb testing.TB) string {
	tb.Helper()
	return env(tb, "TEST_DATABASE_URL", "run the tests with `make test`, which starts a private PostgreSQL, or point it at a PostgreSQL 15+ server with pgvector and pg_trgm")
}

// CitusURL returns TEST_CITUS_URL, the coordinator of a Citus cluster (a
// coordinator and two workers; `make test` starts one), failing the test
// when it is not set.
func CitusURL(tb testing.TB) string {
	tb.Helper()
	return env(tb, "TEST_CITUS_URL", "run the tests with `make test`, which starts a private Citus cluster, or start one with `yakor db start --citus --fast --data-dir DIR` (Citus installed by `scripts/setup.sh citus`) and point TEST_CITUS_URL at the connection string it prints")
}

// env returns the environment variable name, failing the test with what
// to do when it is not set.
func env(tb testing.TB, name, todo string) string {
	tb.Helper()
	v := os.Getenv(name)
	if v == "" {
		tb.Fatalf("%s is not set: %s", name, todo)
	}
	return v
}

// New creates a fresh migrated database for the test and returns a pool on
// it; both are closed and dropped at cleanup.
func New(tb testing.TB) *pgxpool.Pool {
	tb.Helper()
	url, _ := NewURL(tb)
	return open(tb, url, 8)
}

// open opens the owner's pool on url, closed at cleanup.
func open(tb testing.TB, url string, conns int32) *pgxpool.Pool {
	tb.Helper()
	pool, err := postgres.Open(context.Background(), url, postgres.Options{MaxConns: conns}, Logger(tb))
	if err != nil {
		tb.Fatalf("pgtest: open: %v", err)
	}
	tb.Cleanup(pool.Close)
	return pool
}

// NewService creates a fresh migrated database for the test and returns
// two pools on it: the owner's (migrations, set-up, cross-tenant work; not
// held by row-level security) and the service role's (postgres.DB: held to
// the tenant each context names), as `yakor serve` has them.
func NewService(tb testing.TB) (*pgxpool.Pool, *postgres.DB) {
	tb.Helper()
	return NewTracedService(tb, nil)
}

// NewTracedService is NewService whose service pool shows tracer every
// statement and batch it sends (nil: none).
func NewTracedService(tb testing.TB, tracer pgx.QueryTracer) (*pgxpool.Pool, *postgres.DB) {
	tb.Helper()
	url, _ := NewURL(tb)
	owner := open(tb, url, 4)
	svc, err := postgres.OpenService(context.Background(), url, "", postgres.Options{MaxConns: 8, Tracer: tracer}, Logger(tb))
	if err != nil {
		tb.Fatalf("pgtest: open as the service role: %v", err)
	}
	tb.Cleanup(svc.Pool().Close)
	return owner, svc
}

// NewURL creates a fresh migrated database for the test and returns its URL
// and name, for tests that open connections themselves (a server under
// test). It is dropped at cleanup, after cleanups registered later ran.
func NewURL(tb testing.TB) (url, name string) {
	tb.Helper()
	name = createDatabase(tb, func(ctx context.Context, admin *pgx.Conn, base string) (string, error) {
		tmpl, err := template(ctx, admin, base)
		if err != nil {
			return "", fmt.Errorf("template: %w", err)
		}
		return "TEMPLATE " + pgx.Identifier{tmpl}.Sanitize(), nil
	})
	return withDatabase(URL(tb), name), name
}

// createDatabase creates a database named for the test with the options
// opts returns (after "CREATE DATABASE name"), and drops it at cleanup.
func createDatabase(tb testing.TB, opts func(ctx context.Context, admin *pgx.Conn, base string) (string, error)) string {
	tb.Helper()
	base := URL(tb)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		tb.Fatalf("pgtest: TEST_DATABASE_URL is set but the server cannot be reached: %v", err)
	}
	defer admin.Close(context.Background())
	with, err := opts(ctx, admin, base)
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	name := "yakor_t_" + randomHex(6)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+" "+with); err != nil {
		tb.Fatalf("pgtest: create database: %v", err)
	}
	tb.Cleanup(func() { dropDatabase(tb, base, name) })
	return name
}

// dropDatabase drops database name on the server url names, its sessions
// ended.
func dropDatabase(tb testing.TB, url, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		tb.Errorf("pgtest: drop %s: %v", name, err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		tb.Errorf("pgtest: drop %s: %v", name, err)
	}
}

// template returns the name of a database migrated to the current schema,
// creating it once; an advisory lock serialises test processes.
func template(ctx context.Context, admin *pgx.Conn, base string) (string, error) {
	name := "yakor_tmpl_" + schemaHash()
	if _, err := admin.Exec(ctx, `SELECT pg_advisory_lock(7418529)`); err != nil {
		return "", err
	}
	defer admin.Exec(context.Background(), `SELECT pg_advisory_unlock(7418529)`) //nolint:errcheck

	var exists bool
	if err := admin.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1 AND datistemplate)`, name).Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, nil
	}
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		return "", err
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+" TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C.UTF-8'"); err != nil {
		return "", err
	}
	pool, err := postgres.Open(ctx, withDatabase(base, name), postgres.Options{MaxConns: 2}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return "", err
	}
	err = postgres.Migrate(ctx, pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
	pool.Close()
	if err != nil {
		return "", err
	}
	if _, err := admin.Exec(ctx, "ALTER DATABASE "+pgx.Identifier{name}.Sanitize()+" WITH IS_TEMPLATE true"); err != nil {
		return "", err
	}
	return name, nil
}

// withDatabase returns base (URL or keyword/value form) rewritten as a
// keyword/value DSN naming database name.
func withDatabase(base, name string) string {
	cfg, err := pgx.ParseConfig(base)
	if err != nil {
		return base
	}
	dsn := postgres.DSN(cfg.Host, int(cfg.Port), cfg.User, name)
	if cfg.Password != "" {
		dsn += " password=" + postgres.DSNValue(cfg.Password)
	}
	return dsn
}

// schemaHash identifies the set of migrations, so a changed schema gets a
// new template.
func schemaHash() string {
	h := sha256.New()
	names, _ := fs.Glob(migrations.FS, "*.sql")
	sort.Strings(names)
	for _, n := range names {
		b, _ := fs.ReadFile(migrations.FS, n)
		h.Write([]byte(n))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Logger returns a logger for code under test: warnings and errors go to
// standard error, where `go test` shows them beside the failing test.
func Logger(tb testing.TB) *slog.Logger {
	tb.Helper()
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// NewWithLocale creates a fresh database with the given locale (e.g. "C",
// which does not case-fold Cyrillic), migrates it, and returns a pool on
// it; it is dropped at cleanup.
func NewWithLocale(tb testing.TB, locale string) *pgxpool.Pool {
	tb.Helper()
	name := createDatabase(tb, func(context.Context, *pgx.Conn, string) (string, error) {
		return "TEMPLATE template0 ENCODING 'UTF8' LOCALE " + quoteLiteral(locale), nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool, err := postgres.Open(ctx, withDatabase(URL(tb), name), postgres.Options{MaxConns: 8}, Logger(tb))
	if err != nil {
		tb.Fatalf("pgtest: open: %v", err)
	}
	tb.Cleanup(pool.Close)
	if err := postgres.Migrate(ctx, pool, Logger(tb)); err != nil {
		tb.Fatalf("pgtest: migrate: %v", err)
	}
	return pool
}

func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// RequireRoot fails the test unless it runs as root, saying why it needs
// to: the one policy for such tests. They never skip: CI runs as root, so
// a test that skipped there would be a test that cannot fail.
func RequireRoot(tb testing.TB, why string) {
	tb.Helper()
	if os.Geteuid() != 0 {
		tb.Fatalf("this test needs root (%s): run it as root, as CI does", why)
	}
}

// DataDir returns a path for a private cluster's data folder inside a
// fresh temporary directory that the unprivileged account PostgreSQL runs
// as can traverse (t.TempDir makes 0700 folders); the folder itself does
// not exist yet.
func DataDir(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	return filepath.Join(dir, "data")
}

// Migrations returns a goose provider of the migrations on pool's
// database, for tests of an upgrade: take it down to a version, fill it as
// it was, and bring it up again.
func Migrations(tb testing.TB, pool *pgxpool.Pool) *goose.Provider {
	tb.Helper()
	db := stdlib.OpenDBFromPool(pool)
	tb.Cleanup(func() { db.Close() })
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS)
	if err != nil {
		tb.Fatalf("pgtest: migrations: %v", err)
	}
	return p
}
