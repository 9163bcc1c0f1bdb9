package bench

// What every benchmark starts with: its flags and the settings, its
// database, and Yakor built on it by app.New.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"

	"yakor/app"
)

// defaultBenchDir is the bench folder: the private cluster and the quick
// report.
const defaultBenchDir = "./.yakor-bench"

// newFlagSet is the flags of yakor bench name (app.NewFlagSet).
func newFlagSet(name string, args []string, stdout, stderr io.Writer) *flag.FlagSet {
	return app.NewFlagSet("yakor bench "+name, args, stdout, stderr)
}

// parseFlags parses a benchmark's own flags, declared on fs, with
// --bench-dir and the settings (app.Parse: the environment, then the
// flags). The settings' data folder is the bench folder. It returns
// flag.ErrHelp when asked for the usage, which it wrote.
func parseFlags(fs *flag.FlagSet, args []string, getenv func(string) string) (app.Config, error) {
	benchDir := fs.String("bench-dir", defaultBenchDir, "the bench folder: its private PostgreSQL cluster (used without DATABASE_URL)")
	cfg, err := app.Parse(fs, args, getenv)
	cfg.DataDir = *benchDir
	return cfg, err
}

// database is a benchmark's database (app's: the owner's pool, the service
// role's and, when the benchmark runs its own server, the private cluster)
// and its connection string, for the sibling databases beside it.
type database struct {
	*app.Database
	url string
}

// openDatabase opens the benchmark's database (its own private cluster in
// the bench folder unless DATABASE_URL is set, started with
// benchServerSettings), logging only warnings.
func openDatabase(ctx context.Context, cfg app.Config, stderr io.Writer) (*database, *slog.Logger, error) {
	log, err := app.NewLogger(app.Config{LogLevel: "warn", LogFormat: "text"}, stderr)
	if err != nil {
		return nil, nil, err
	}
	db, err := app.OpenDatabase(ctx, cfg, log, app.DatabaseOptions{Settings: benchServerSettings})
	if err != nil {
		return nil, nil, err
	}
	return &database{Database: db, url: db.Owner.Config().ConnString()}, log, nil
}

// benchServerSettings are the benchmarks' private cluster's settings beyond
// PostgreSQL's defaults, as a server holding millions of messages would be
// tuned: shared buffers a quarter of the machine's memory (PostgreSQL's own
// advice for a dedicated server; at least 1 GB, at most 8 GB), so that the
// corpora measured are read from the server's cache rather than through a
// system call per page, checkpoints far apart during bulk loads, and no
// WAL for index builds (nothing replicates from it). Durability is as
// served: fsync and synchronous commit stay on (the bulk loaders turn
// synchronous commit off in their own sessions).
var benchServerSettings = map[string]string{
	"shared_buffers":     sharedBuffers(procField("/proc/meminfo", "MemTotal")),
	"max_wal_size":       "8GB",
	"checkpoint_timeout": "30min",
	"wal_level":          "minimal",
	"max_wal_senders":    "0",
}

// citusServerSettings are each server's of the benchmarks' Citus cluster
// (a coordinator and its workers on this one machine): the single node's,
// with 1 GB of shared buffers each.
var citusServerSettings = func() map[string]string {
	s := maps.Clone(benchServerSettings)
	s["shared_buffers"] = "1GB"
	return s
}()

// sharedBuffers is a quarter of memTotal (/proc/meminfo's "24634476 kB"),
// in whole gigabytes from 1 to 8; 1GB when memTotal cannot be read.
func sharedBuffers(memTotal string) string {
	var kb int64
	if _, err := fmt.Sscanf(memTotal, "%d", &kb); err != nil {
		return "1GB"
	}
	return fmt.Sprintf("%dGB", min(max(kb/4>>20, 1), 8))
}

// offline is every model role on the offline provider: the benchmarks
// measure Yakor, not a model server.
var offline = app.ModelConfig{Provider: app.ProviderOffline}

// newApp builds Yakor on db as app.New builds it for yakor serve, from cfg
// with every model offline and no research schedule, and opts. It starts
// nothing and the database stays the caller's: there is nothing to close.
func newApp(ctx context.Context, cfg app.Config, log *slog.Logger, db *app.Database, opts ...app.Option) (*app.App, error) {
	cfg.Chat, cfg.Helper, cfg.Embed = offline, offline, offline
	cfg.ResearchSchedule = "off"
	a, err := app.New(ctx, cfg, log, append([]app.Option{app.WithDatabase(db)}, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("bench: build yakor: %w", err)
	}
	return a, nil
}

// deleteTenant deletes a benchmark's tenant, and with it everything it
// stored.
func deleteTenant(db *app.Database, id string) {
	_, _ = db.Owner.Exec(context.Background(), `DELETE FROM tenants WHERE id = $1`, id)
}

// writeJSON writes v, indented, to path ("" writes nothing).
func writeJSON(path string, v any) error {
	if path == "" {
		return nil
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(out, '\n'), 0o644)
}
