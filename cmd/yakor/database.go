package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"

	"yakor/app"
	"yakor/migrations"
	"yakor/postgres/citus"
	"yakor/postgres/cluster"
)

// parseSettings parses the settings and the command's own flags declared
// on fs, and builds the logger they ask for.
func parseSettings(fs *flag.FlagSet, args []string, stderr io.Writer, getenv func(string) string) (app.Config, *slog.Logger, error) {
	cfg, err := app.Parse(fs, args, getenv)
	if err != nil {
		return cfg, nil, err
	}
	log, err := app.NewLogger(cfg, stderr)
	return cfg, log, err
}

// openDatabase is the start of a command that works on the database: it
// parses the settings (fs may declare the command's own flags), builds the
// logger and opens (and migrates) the database. A private cluster that a
// running yakor serve owns is used through its socket, never stopped. The
// caller closes the database.
func openDatabase(ctx context.Context, fs *flag.FlagSet, args []string, stderr io.Writer, getenv func(string) string) (app.Config, *slog.Logger, *app.Database, error) {
	cfg, log, err := parseSettings(fs, args, stderr, getenv)
	if err != nil {
		return cfg, nil, nil, err
	}
	db, err := app.OpenDatabase(ctx, cfg, log, app.DatabaseOptions{Attach: true})
	return cfg, log, db, err
}

// openApp is openDatabase building the whole app on it (nothing started):
// for commands that use a memory layer as the server would.
func openApp(ctx context.Context, fs *flag.FlagSet, args []string, stderr io.Writer, getenv func(string) string, opts ...app.Option) (*app.App, error) {
	cfg, log, db, err := openDatabase(ctx, fs, args, stderr, getenv)
	if err != nil {
		return nil, err
	}
	a, err := app.New(ctx, cfg, log, append([]app.Option{app.WithDatabase(db)}, opts...)...)
	if err != nil {
		db.Close()
		return nil, err
	}
	return a, nil
}

func runMigrate(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	_, log, db, err := openDatabase(ctx, newFlagSet("migrate", args, stdout, stderr), args, stderr, getenv)
	if err != nil {
		return err
	}
	db.Close()
	log.Info("database is migrated")
	return nil
}

// fastSettings make a throw-away server quicker (no syncs) and give it
// room for the tests' many pools.
var fastSettings = map[string]string{"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off", "max_connections": "300"}

// fastShards is citus.shard_count with --fast: a test creates many
// distributed tables, and Citus's 32 shards apiece make that slow.
const fastShards = 4

// runDBStart starts a detached private cluster, or with --citus a Citus
// cluster (a coordinator and workers), and prints its connection string:
// the test harness starts them, points TEST_DATABASE_URL and
// TEST_CITUS_URL at them, and stops them afterwards.
func runDBStart(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlagSet("db start", args, stdout, stderr)
	fast := fs.Bool("fast", false, "start with fsync off: quicker, for throw-away test data only")
	withCitus := fs.Bool("citus", false, "start a Citus cluster: a coordinator in <data-dir>/coordinator and --citus-workers workers in <data-dir>/workerN (Citus must be installed: scripts/setup.sh citus)")
	// Not --workers: that is the post-turn job workers' setting.
	workers := fs.Int("citus-workers", 2, "with --citus: the number of workers")
	shards := fs.Int("citus-shards", 0, fmt.Sprintf("with --citus: citus.shard_count, the shards of each table distributed (0: Citus's 32, or %d with --fast)", fastShards))
	cfg, log, err := parseSettings(fs, args, stderr, getenv)
	if err != nil {
		return err
	}
	var settings map[string]string
	if *fast {
		settings = maps.Clone(fastSettings)
	}
	if *withCitus {
		if *shards == 0 && *fast {
			*shards = fastShards
		}
		opts := citus.Options{Dir: cfg.DataDir, Workers: *workers, ShardCount: *shards, BinDir: cfg.PGBin, User: cfg.PGUser,
			Detach: true, Settings: settings, Logger: log}
		return startCitus(ctx, opts, stdout)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["citus-workers"] || set["citus-shards"] {
		return errors.New("db start: --citus-workers and --citus-shards go with --citus")
	}
	if citus.IsLayout(cfg.DataDir) {
		return fmt.Errorf("db start: %s holds a Citus cluster: start it with --citus", cfg.DataDir)
	}
	opts := cluster.Options{Dir: cfg.DataDir, BinDir: cfg.PGBin, User: cfg.PGUser, Detach: true, Settings: settings, Logger: log}
	cl, err := cluster.Start(ctx, opts)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, cl.URL())
	return nil
}

// startCitus starts a detached Citus cluster with the extensions the
// migrations create on every node, and prints the coordinator's
// connection string.
func startCitus(ctx context.Context, opts citus.Options, stdout io.Writer) error {
	if _, err := os.Stat(filepath.Join(opts.Dir, "pg", "PG_VERSION")); err == nil {
		return fmt.Errorf("db start: %s holds a single-node cluster: start it without --citus, or use another folder", opts.Dir)
	}
	opts.Extensions = migrations.Extensions()
	c, err := citus.Start(ctx, opts)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, c.URL())
	return nil
}

// runDBStop stops a detached private cluster, or every node of a Citus
// cluster's folder.
func runDBStop(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	cfg, _, err := parseSettings(newFlagSet("db stop", args, stdout, stderr), args, stderr, getenv)
	if err != nil {
		return err
	}
	if citus.IsLayout(cfg.DataDir) {
		return citus.StopDir(ctx, cfg.DataDir)
	}
	return cluster.StopDir(ctx, cfg.DataDir)
}
