package app

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"yakor"
	"yakor/postgres"
	"yakor/postgres/cluster"
)

// Database is the owner's pool, the service role's, and, when Yakor runs
// its own, the private cluster. The owner's pool migrates and does the
// cross-tenant work (API keys, the job queue, the research run's queue,
// embedding spaces); every tenant's reads and writes go through Tenant,
// held by row-level security to the tenant of its context.
type Database struct {
	Owner  *pgxpool.Pool
	Tenant *postgres.DB
	// private is the private cluster's options; its Dir is "" when Yakor
	// runs none.
	private cluster.Options
	// mu guards cluster, which watch replaces when it starts it again.
	mu      sync.Mutex
	cluster *cluster.Cluster
	// stopWatch ends watch; nil while none runs.
	stopWatch func()
	log       *slog.Logger
}

// DatabaseOptions tune OpenDatabase.
type DatabaseOptions struct {
	// Settings are the private cluster's server settings beyond
	// PostgreSQL's defaults (name → value).
	Settings map[string]string
	// Attach uses the private cluster of a data folder that a running
	// yakor serve owns, through its socket, instead of refusing it: for
	// commands run beside the server (keys, migrate). Such a cluster is
	// never stopped by Close.
	Attach bool
}

// OpenDatabase connects to cfg's DATABASE_URL, or starts the private
// cluster in its data folder, then checks and migrates the database.
func OpenDatabase(ctx context.Context, cfg Config, log *slog.Logger, o DatabaseOptions) (*Database, error) {
	db := &Database{log: log}
	url := cfg.DatabaseURL
	if url == "" {
		opts := cluster.Options{Dir: cfg.DataDir, BinDir: cfg.PGBin, User: cfg.PGUser, Settings: o.Settings, Attach: o.Attach, Logger: log}
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
	pool, err := postgres.Open(ctx, url, postgres.Options{}, log)
	if err == nil {
		db.Owner = pool
		err = postgres.Migrate(ctx, pool, log)
	}
	if err == nil {
		db.Tenant, err = postgres.OpenService(ctx, url, cfg.DatabaseServiceURL, postgres.Options{}, log)
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// Private reports whether Yakor runs the database itself, in its data
// folder, and owns it (not attached to a serving yakor's).
func (db *Database) Private() bool {
	cl := db.current()
	return cl != nil && !cl.Attached()
}

// Close closes the pools, then stops the private cluster.
func (db *Database) Close() {
	if db.stopWatch != nil {
		db.stopWatch()
	}
	if db.Tenant != nil {
		db.Tenant.Pool().Close()
	}
	if db.Owner != nil {
		db.Owner.Close()
	}
	if cl := db.current(); cl != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := cl.Stop(ctx); err != nil {
			db.log.Error("stop private PostgreSQL", "err", err)
		}
	}
}
