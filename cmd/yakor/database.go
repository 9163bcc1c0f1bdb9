package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"yakor/app"
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

// runDBStart starts a detached private cluster and prints its connection
// string: the test harness starts one, points TEST_DATABASE_URL at it, and
// stops it afterwards.
func runDBStart(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlagSet("db start", args, stdout, stderr)
	fast := fs.Bool("fast", false, "start with fsync off: quicker, for throw-away test data only")
	cfg, log, err := parseSettings(fs, args, stderr, getenv)
	if err != nil {
		return err
	}
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
}

// runDBStop stops a detached private cluster.
func runDBStop(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	cfg, _, err := parseSettings(newFlagSet("db stop", args, stdout, stderr), args, stderr, getenv)
	if err != nil {
		return err
	}
	return cluster.StopDir(ctx, cfg.DataDir)
}
