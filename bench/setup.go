package bench

import (
	"context"
	"flag"
	"io"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"

	"yakor/app"
	"yakor/postgres"
)

// Config is app.Config.
type Config = app.Config

func parseConfig(fs *flag.FlagSet, args []string, getenv func(string) string) (Config, error) {
	return app.Parse(fs, args, getenv)
}

func newLogger(c Config, w io.Writer) (*slog.Logger, error) { return app.NewLogger(c, w) }

func searchRounds(n int) int { return n }

type database struct {
	pool    *pgxpool.Pool
	svc     *postgres.DB
	cluster any
	url     string
	db      *app.Database
}

func openDatabaseWith(ctx context.Context, cfg Config, settings map[string]string, log *slog.Logger) (*database, error) {
	db, err := app.OpenDatabase(ctx, cfg, log, app.DatabaseOptions{Settings: settings})
	if err != nil {
		return nil, err
	}
	d := &database{pool: db.Owner, svc: db.Tenant, url: db.Owner.Config().ConnString(), db: db}
	if db.Private() {
		d.cluster = true
	}
	return d, nil
}

func (d *database) close(*slog.Logger) {
	if d.db != nil {
		d.db.Close()
		return
	}
	if d.svc != nil {
		d.svc.Pool().Close()
	}
	if d.pool != nil {
		d.pool.Close()
	}
}

// newFlagSet is a benchmark's flags. Its usage goes to stdout when args
// ask for it (-h, --help), errors to stderr.
func newFlagSet(name string, args []string, stdout, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("yakor "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "--help" || a == "-help" {
			fs.SetOutput(stdout)
		}
	}
	return fs
}
