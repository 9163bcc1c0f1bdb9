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
	// Tracer sees every statement the pool's connections run (tests that
	// look at what a conversation sent); nil: none.
	Tracer pgx.QueryTracer
}

// Open prepares the database at url and returns a pool on it: it creates the
// vector and pg_trgm extensions if missing, checks that the database folds
// Cyrillic case, and registers pgvector's types on every connection. It does
// not migrate; call Migrate.
func Open(ctx context.Context, url string, opts Options, log *slog.Logger) (*pgxpool.Pool, error) {
	cfg, err := poolConfig(url, opts)
	if err != nil {
		return nil, err
	}
	if err := Check(ctx, cfg.ConnConfig); err != nil {
		return nil, err
	}
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		return pgxvec.RegisterTypes(ctx, conn)
	}
	pool, err := connect(ctx, cfg)
	if err != nil {
		return nil, err
	}
	log.InfoContext(ctx, "database ready", "host", cfg.ConnConfig.Host, "database", cfg.ConnConfig.Database)
	return pool, nil
}

// OpenService returns the pool the service's requests use, on a database
// Open checked and Migrate migrated. Its connections are ServiceRole's,
// held by row-level security to the tenant each transaction names (see DB).
// serviceURL, when set, names how to log in as that role (or as a role
// that is a member of it without BYPASSRLS). Otherwise it logs in as
// ServiceRole at url's server without a password, which a server trusting
// its Unix socket (the private cluster's) allows; when the server refuses,
// it logs in as url's user and takes the role with SET ROLE, which holds
// every query Yakor sends but not a session that could send RESET ROLE,
// and says so in the log.
func OpenService(ctx context.Context, url, serviceURL string, opts Options, log *slog.Logger) (*DB, error) {
	direct := serviceURL
	if direct == "" {
		direct = url
	}
	cfg, err := poolConfig(direct, opts)
	if err != nil {
		return nil, err
	}
	if serviceURL == "" {
		cfg.ConnConfig.User, cfg.ConnConfig.Password = ServiceRole, ""
	}
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		return pgxvec.RegisterTypes(ctx, conn)
	}
	pool, err := connect(ctx, cfg)
	if err != nil && serviceURL == "" {
		log.WarnContext(ctx, "cannot log in as the service role "+ServiceRole+"; taking it with SET ROLE instead, which holds every query Yakor sends to its tenant but not a session that sends RESET ROLE: give the role a login and set YAKOR_DATABASE_SERVICE_URL", "err", pgErrMessage(err))
		pool, err = openSetRole(ctx, url, opts)
	}
	if err != nil {
		return nil, fmt.Errorf("open database as the service role: %w", err)
	}
	var bypass bool
	if err := pool.QueryRow(ctx, `SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user`).Scan(&bypass); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open database as the service role: %w", err)
	}
	if bypass {
		pool.Close()
		return nil, yakor.Errorf(yakor.EUNAVAILABLE, "the service's database role is a superuser or bypasses row-level security: YAKOR_DATABASE_SERVICE_URL must log in as %s or a role like it", ServiceRole)
	}
	db := NewDB(pool)
	if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_extension WHERE extname = 'citus')`).Scan(&db.distributed); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open database as the service role: %w", err)
	}
	return db, nil
}

// openSetRole opens a pool as url's user that acts as ServiceRole.
func openSetRole(ctx context.Context, url string, opts Options) (*pgxpool.Pool, error) {
	cfg, err := poolConfig(url, opts)
	if err != nil {
		return nil, err
	}
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		if err := pgxvec.RegisterTypes(ctx, conn); err != nil {
			return err
		}
		if _, err := conn.Exec(ctx, "SET ROLE "+pgx.Identifier{ServiceRole}.Sanitize()); err != nil {
			return fmt.Errorf("act as the service role %s: %w", ServiceRole, err)
		}
		return nil
	}
	return connect(ctx, cfg)
}

func poolConfig(url string, opts Options) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("open database: parse DATABASE_URL: %w", err)
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	// Filtered nearest-neighbour queries (one tenant's vectors in a shared
	// HNSW index) keep scanning the index until they have their rows.
	cfg.ConnConfig.RuntimeParams["hnsw.iterative_scan"] = "relaxed_order"
	// No JIT: Yakor's statements are short, and JIT compiles any whose
	// estimate passes jit_above_cost. At 10,000,000 messages the keyword
	// leg's generic plan (migration 00026) is estimated past it, and
	// compiling took 410 ms of a 530 ms search.
	cfg.ConnConfig.RuntimeParams["jit"] = "off"
	cfg.ConnConfig.Tracer = opts.Tracer
	return cfg, nil
}

func connect(ctx context.Context, cfg *pgxpool.Config) (*pgxpool.Pool, error) {
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open database: %w", err)
	}
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
