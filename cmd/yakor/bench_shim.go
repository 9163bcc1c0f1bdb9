package main

// Transitional: the benchmarks move to package bench, built on app.New.

import (
	"context"
	"flag"
	"io"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"

	"yakor/app"
	"yakor/postgres"
)

// Config is app.Config (transitional).
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

func benchCommands() []command {
	return []command{
		{name: "all", args: "[--quick] [flags]", summary: "run every benchmark and write docs/benchmarks.md (+ .json, prompt-size.png)", run: runBenchAll},
		{name: "turn", args: "[--messages 1000,100000] [flags]", summary: "the memory layer's cost per turn", run: func(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
			return runBench(ctx, append([]string{"turn"}, args...), stdout, stderr, getenv)
		}},
		{name: "api", args: "[--turns 300] [flags]", summary: "what the OpenAI-compatible endpoint adds to a turn over the native API", run: runBenchAPI},
		{name: "load", args: "[--conversations 200 --turns 50] [flags]", summary: "many conversations at once against a served yakor, checking nothing is lost", run: runBenchLoad},
		{name: "search", args: "[flags]", summary: "history search latency over millions of messages", run: runBenchSearch},
		{name: "prompt", args: "[flags]", summary: "prompt size against turn number", run: runBenchPrompt},
		{name: "locomo", args: "[flags]", summary: "LoCoMo evidence recall", run: runBenchLocomo},
		{name: "locomo-loss", args: "[flags]", summary: "which memory layer holds each LoCoMo question's evidence", run: runBenchLocomoLoss},
		{name: "mnemos", args: "[flags]", summary: "long-term memory's recall and its cost per turn", run: runBenchMnemos},
	}
}
