package bench

// Databases of their own for the benchmarks' bulk data, beside the one the
// benchmark opened on the same server: "N messages in the database" is then
// exactly that many, a loaded corpus is kept for the next run whatever else
// runs, and a thread of a million messages goes with one DROP DATABASE
// rather than a million-row DELETE and the vacuum after it.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5"

	"yakor/app"
	"yakor/migrations"
	"yakor/postgres"
	"yakor/postgres/citus"
)

// siblingComplete starts the comment of a sibling database whose load
// finished; what the load took follows it.
const siblingComplete = "yakor bench: complete "

// openSibling opens the database name on db's server, migrated, with the
// owner's and the service role's pools. fresh drops it first; otherwise it
// is created when missing. done is what markComplete stored, "" when it was
// not marked.
func (db *database) openSibling(ctx context.Context, name string, fresh bool, log *slog.Logger) (sib *database, done string, err error) {
	if db.url == "" {
		return nil, "", errors.New("bench: the database's connection string is unknown")
	}
	if fresh {
		if err := db.dropSibling(ctx, name); err != nil {
			return nil, "", fmt.Errorf("bench: drop database %s: %w", name, err)
		}
	}
	var comment *string
	err = db.Owner.QueryRow(ctx, `SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = $1`, name).Scan(&comment)
	switch {
	case errors.Is(err, pgx.ErrNoRows) && db.distributed():
		// On every node of the Citus cluster, the workers registered.
		if err := citus.CreateDatabase(ctx, db.url, name, migrations.Extensions()); err != nil {
			return nil, "", fmt.Errorf("bench: %w", err)
		}
	case errors.Is(err, pgx.ErrNoRows):
		if _, err := db.Owner.Exec(ctx, `CREATE DATABASE `+pgx.Identifier{name}.Sanitize()); err != nil {
			return nil, "", fmt.Errorf("bench: create database %s (the benchmark's role needs CREATEDB, which its private cluster has): %w", name, err)
		}
	case err != nil:
		return nil, "", err
	}
	if comment != nil {
		done, _ = strings.CutPrefix(*comment, siblingComplete)
		if done == *comment {
			done = ""
		}
	}
	u, err := withDatabaseName(db.url, name)
	if err != nil {
		return nil, "", err
	}
	sib = &database{Database: &app.Database{}, url: u}
	if sib.Owner, err = postgres.Open(ctx, u, postgres.Options{}, log); err == nil {
		if err = postgres.Migrate(ctx, sib.Owner, log); err == nil {
			sib.Tenant, err = postgres.OpenService(ctx, u, "", postgres.Options{}, log)
		}
	}
	if err != nil {
		sib.Close()
		return nil, "", fmt.Errorf("bench: open database %s: %w", name, err)
	}
	return sib, done, nil
}

// markComplete marks the sibling database name as loaded, with what the
// load took (a word, or JSON, without quotes).
func (db *database) markComplete(ctx context.Context, name, done string) error {
	if done == "" || strings.Contains(done, "'") {
		return fmt.Errorf("bench: mark %s complete: %q is not a mark", name, done)
	}
	_, err := db.Owner.Exec(ctx, `COMMENT ON DATABASE `+pgx.Identifier{name}.Sanitize()+` IS '`+siblingComplete+done+`'`)
	return err
}

// dropSibling drops the sibling database name (closed first).
func (db *database) dropSibling(ctx context.Context, name string) error {
	if db.distributed() {
		return citus.DropDatabase(ctx, db.url, name)
	}
	_, err := db.Owner.Exec(ctx, `DROP DATABASE IF EXISTS `+pgx.Identifier{name}.Sanitize()+` WITH (FORCE)`)
	return err
}

// distributed reports whether db is a Citus coordinator's database.
func (db *database) distributed() bool { return db.Tenant != nil && db.Tenant.Distributed() }

// siblingName is the name of a sibling of db's database: its own name,
// then suffix.
func (db *database) siblingName(suffix string) string {
	base := "yakor"
	if cfg, err := pgx.ParseConfig(db.url); err == nil && cfg.Database != "" {
		base = cfg.Database
	}
	return base + "_" + suffix
}

// withDatabaseName returns the connection string s naming database name
// instead (a URL or keyword/value form, whose last dbname wins).
func withDatabaseName(s, name string) (string, error) {
	if strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://") {
		u, err := url.Parse(s)
		if err != nil {
			return "", fmt.Errorf("bench: parse the database URL: %w", err)
		}
		u.Path, u.RawPath = "/"+name, ""
		return u.String(), nil
	}
	return s + " dbname='" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(name) + "'", nil
}
