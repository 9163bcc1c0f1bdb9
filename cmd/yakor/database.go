package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"yakor"
	"yakor/postgres"
	"yakor/postgres/cluster"
)

// database is the owner's pool, the service role's, and, when Yakor runs
// its own, the private cluster. The owner's pool migrates and does the
// cross-tenant work (API keys, the job queue, the research run's queue,
// embedding spaces); every tenant's reads and writes go through svc, held
// by row-level security to the tenant of its context.
type database struct {
	pool *pgxpool.Pool
	svc  *postgres.DB
	// private is the private cluster's options; its Dir is "" when
	// Yakor runs none.
	private cluster.Options
	// mu guards cluster, which watch replaces when it starts it again.
	mu      sync.Mutex
	cluster *cluster.Cluster
	url     string // the owner's connection string
	// stopWatch ends watch; nil while none runs.
	stopWatch func()
}

// openDatabase connects to DATABASE_URL, or starts the private cluster in
// the data folder, then checks and migrates the database.
func openDatabase(ctx context.Context, cfg Config, log *slog.Logger) (*database, error) {
	return openDatabaseWith(ctx, cfg, nil, log)
}

// openDatabaseWith is openDatabase starting the private cluster with
// server settings of its own (name → value).
func openDatabaseWith(ctx context.Context, cfg Config, settings map[string]string, log *slog.Logger) (*database, error) {
	db := &database{}
	url := cfg.DatabaseURL
	if url == "" {
		opts := cluster.Options{Dir: cfg.DataDir, BinDir: cfg.PGBin, User: cfg.PGUser, Settings: settings, Logger: log}
		cl, err := cluster.Start(ctx, opts)
		if err != nil {
			if why := diagnose(opts.Dir); why != nil {
				err = fmt.Errorf("%s: %w", yakor.ErrorMessage(why), err)
			}
			return nil, fmt.Errorf("private PostgreSQL in %s: %w", cfg.DataDir, err)
		}
		db.cluster, db.private = cl, opts
		url = cl.URL()
	}
	db.url = url
	pool, err := postgres.Open(ctx, url, postgres.Options{}, log)
	if err == nil {
		db.pool = pool
		err = postgres.Migrate(ctx, pool, log)
	}
	if err == nil {
		db.svc, err = postgres.OpenService(ctx, url, cfg.DatabaseServiceURL, postgres.Options{}, log)
	}
	if err != nil {
		db.close(log)
		return nil, err
	}
	return db, nil
}

// close closes the pool, then stops the private cluster.
func (db *database) close(log *slog.Logger) {
	if db.stopWatch != nil {
		db.stopWatch()
	}
	if db.svc != nil {
		db.svc.Pool().Close()
	}
	if db.pool != nil {
		db.pool.Close()
	}
	if cl := db.current(); cl != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := cl.Stop(ctx); err != nil {
			log.Error("stop private PostgreSQL", "err", err)
		}
	}
}

func runMigrate(ctx context.Context, args []string, stderr io.Writer, getenv func(string) string) error {
	_, log, db, err := openCommand(ctx, newFlagSet("migrate", stderr), args, stderr, getenv)
	if err != nil {
		return err
	}
	db.close(log)
	log.Info("database is migrated")
	return nil
}

// openCommand is the start of a command that works on the database: it
// parses the settings (fs may declare the command's own flags), builds the
// logger and opens (and migrates) the database. The caller closes it.
func openCommand(ctx context.Context, fs *flag.FlagSet, args []string, stderr io.Writer, getenv func(string) string) (Config, *slog.Logger, *database, error) {
	cfg, err := parseConfig(fs, args, getenv)
	if err != nil {
		return cfg, nil, nil, err
	}
	log, err := newLogger(cfg, stderr)
	if err != nil {
		return cfg, nil, nil, err
	}
	db, err := openDatabase(ctx, cfg, log)
	if err != nil {
		return cfg, nil, nil, err
	}
	return cfg, log, db, nil
}

// runDB manages a detached private cluster: the test harness starts one,
// points TEST_DATABASE_URL at it, and stops it afterwards.
func runDB(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) == 0 {
		return errors.New("db: say start or stop")
	}
	verb := args[0]
	fs := newFlagSet("db "+verb, stderr)
	fast := fs.Bool("fast", false, "start with fsync off: quicker, for throw-away test data only")
	cfg, err := parseConfig(fs, args[1:], getenv)
	if err != nil {
		return err
	}
	log, err := newLogger(cfg, stderr)
	if err != nil {
		return err
	}
	switch verb {
	case "start":
		opts := cluster.Options{Dir: cfg.DataDir, BinDir: cfg.PGBin, User: cfg.PGUser, Detach: true, Logger: log}
		if *fast {
			opts.Settings = map[string]string{"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off", "max_connections": "300"}
		}
		cl, err := cluster.Start(ctx, opts)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, cl.URL())
		return nil
	case "stop":
		return cluster.StopDir(ctx, cfg.DataDir)
	}
	return fmt.Errorf("db: unknown action %q: say start or stop", verb)
}
