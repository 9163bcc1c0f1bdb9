// Package postgres opens Yakor's connection pool, checks that the server can
// hold Yakor's data (pgvector, pg_trgm, a database that case-folds Cyrillic)
// and applies the embedded migrations. It owns no table: each domain package
// owns its own. Subpackage cluster runs a private server when no DATABASE_URL
// is given; pgtest gives tests a fresh, migrated database.
package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	pgxvec "github.com/pgvector/pgvector-go/pgx"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"yakor"
	"yakor/migrations"
)

// Options tune the pool.
type Options struct {
	MaxConns int32 // 0: pgxpool's default (max(4, cores))
}

// Open prepares the database at url and returns a pool on it: it creates the
// vector and pg_trgm extensions if missing, checks that the database folds
// Cyrillic case, and registers pgvector's types on every connection. It does
// not migrate; call Migrate.
func Open(ctx context.Context, url string, opts Options, log *slog.Logger) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("open database: parse DATABASE_URL: %w", err)
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	if err := Check(ctx, cfg.ConnConfig); err != nil {
		return nil, err
	}
	// Filtered nearest-neighbour queries (one tenant's vectors in a shared
	// HNSW index) keep scanning the index until they have their rows.
	cfg.ConnConfig.RuntimeParams["hnsw.iterative_scan"] = "relaxed_order"
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		return pgxvec.RegisterTypes(ctx, conn)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open database: %w", err)
	}
	log.InfoContext(ctx, "database ready", "host", cfg.ConnConfig.Host, "database", cfg.ConnConfig.Database)
	return pool, nil
}

// Check connects once and verifies what Yakor needs of the server, saying
// plainly what is wrong: the server is reachable, PostgreSQL is 15 or newer,
// the vector and pg_trgm extensions exist (creating them if needed), and the
// server's ICU collation lower-cases Cyrillic (Yakor folds case with it, so
// a database created with the C locale works too).
func Check(ctx context.Context, cc *pgx.ConnConfig) error {
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return yakor.Errorf(yakor.EUNAVAILABLE, "cannot connect to PostgreSQL at %s: %v", where(cc), err)
	}
	defer conn.Close(context.Background())

	var version int
	if err := conn.QueryRow(ctx, `SELECT current_setting('server_version_num')::int`).Scan(&version); err != nil {
		return fmt.Errorf("check database: %w", err)
	}
	if version < 150000 {
		return yakor.Errorf(yakor.EUNAVAILABLE, "PostgreSQL at %s is version %d.%d; Yakor needs 15 or newer", where(cc), version/10000, version%10000)
	}
	for _, ext := range []string{"vector", "pg_trgm"} {
		if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS "+pgx.Identifier{ext}.Sanitize()); err != nil {
			hint := "install it on the database server"
			if ext == "vector" {
				hint = "install pgvector on the database server (scripts/setup.sh does it on Debian)"
			}
			var pgErr *pgconn.PgError
			if errors.As(err, &pgErr) && pgErr.Code == "42501" {
				hint = "connect as a role allowed to create extensions, or have an administrator run CREATE EXTENSION " + ext
			}
			return yakor.Errorf(yakor.EUNAVAILABLE, "PostgreSQL at %s cannot create extension %q: %v; %s", where(cc), ext, pgErrMessage(err), hint)
		}
	}
	// Yakor folds case with ICU's root collation, so that search is
	// case-insensitive for Cyrillic whatever the database's own locale.
	var folded bool
	if err := conn.QueryRow(ctx, `SELECT lower('ЛДСП Ёж' COLLATE "und-x-icu") = 'лдсп ёж'`).Scan(&folded); err != nil {
		return yakor.Errorf(yakor.EUNAVAILABLE,
			"PostgreSQL at %s has no ICU collation \"und-x-icu\" (%s): Yakor needs a server built with ICU to fold Cyrillic case whatever the database's locale",
			where(cc), pgErrMessage(err))
	}
	if !folded {
		return yakor.Errorf(yakor.EUNAVAILABLE, "PostgreSQL at %s does not case-fold Cyrillic with its ICU collation \"und-x-icu\"", where(cc))
	}
	return nil
}

// Migrate applies every embedded migration not yet applied, then the job
// queue's (River's) schema. Concurrent callers (several instances, parallel
// tests) are serialised by PostgreSQL advisory locks.
func Migrate(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) error {
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	if err := migrate(ctx, db, log); err != nil {
		return err
	}
	return migrateRiver(ctx, pool, log)
}

func migrate(ctx context.Context, db *sql.DB, log *slog.Logger) error {
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	files, err := fs.Sub(migrations.FS, ".")
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, files, goose.WithSessionLocker(locker))
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	results, err := p.Up(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	for _, r := range results {
		log.InfoContext(ctx, "migration applied", "version", r.Source.Version, "file", r.Source.Path, "took", r.Duration)
	}
	return nil
}

// migrateRiver applies the job queue's own schema with River's migrator,
// holding an advisory lock so that instances starting together take turns.
func migrateRiver(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("migrate job queue: %w", err)
	}
	defer conn.Release()
	const lockKey = 7418530
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, lockKey); err != nil {
		return fmt.Errorf("migrate job queue: lock: %w", err)
	}
	defer conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1)`, lockKey) //nolint:errcheck
	m, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Logger: log})
	if err != nil {
		return fmt.Errorf("migrate job queue: %w", err)
	}
	res, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return fmt.Errorf("migrate job queue: %w", err)
	}
	for _, v := range res.Versions {
		log.InfoContext(ctx, "job queue migration applied", "version", v.Version)
	}
	return nil
}

// where names the server for error messages, without credentials.
func where(cc *pgx.ConnConfig) string {
	if strings.HasPrefix(cc.Host, "/") {
		return cc.Host + " (socket)"
	}
	return net.JoinHostPort(cc.Host, fmt.Sprint(cc.Port))
}

func pgErrMessage(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Message
	}
	return err.Error()
}
