package bench

// The load bench on Citus: `yakor bench load --distributed` runs the same
// load on one PostgreSQL and on a private Citus cluster (a coordinator and
// its workers, distributed by tenant), side by side.

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/jackc/pgx/v5"

	"yakor/app"
	"yakor/migrations"
	"yakor/postgres/citus"
)

// startLoadCitus starts the private Citus cluster in o.BenchDir/citus with
// its own database for this run: the nodes are started, the last run's
// database dropped on each, and the cluster started again, which makes it
// anew on every node with its extensions and registers the workers.
func startLoadCitus(ctx context.Context, o loadOptions, stderr io.Writer) (*citus.Cluster, error) {
	log, err := app.NewLogger(app.Config{LogLevel: "warn", LogFormat: "text"}, stderr)
	if err != nil {
		return nil, err
	}
	opts := citus.Options{Dir: filepath.Join(o.BenchDir, "citus"), Workers: o.CitusWorkers, BinDir: o.PGBin, User: o.PGUser,
		Database: loadDatabase, Extensions: migrations.Extensions(), Settings: o.PGSettings, Logger: log}
	c, err := citus.Start(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("bench load: private Citus cluster in %s: %w", opts.Dir, err)
	}
	urls := []string{c.URL()}
	for i := 1; i <= o.CitusWorkers; i++ {
		urls = append(urls, c.WorkerURL(i))
	}
	for _, url := range urls {
		if err := dropDatabase(ctx, url); err != nil {
			_ = c.Stop(context.WithoutCancel(ctx))
			return nil, fmt.Errorf("bench load: %w", err)
		}
	}
	if c, err = citus.Start(ctx, opts); err != nil {
		return nil, fmt.Errorf("bench load: private Citus cluster in %s: %w", opts.Dir, err)
	}
	return c, nil
}

// dropDatabase drops the database url names, from the server's postgres
// database.
func dropDatabase(ctx context.Context, url string) error {
	return onServer(ctx, url, func(conn *pgx.Conn, name string) error {
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			return fmt.Errorf("drop the last run's database: %w", err)
		}
		return nil
	})
}

// benchLoadDistributed runs the load on one node, then on Citus, and
// returns both reports.
func benchLoadDistributed(ctx context.Context, o loadOptions, stderr io.Writer) ([2]loadReport, error) {
	var reps [2]loadReport
	single := o
	single.Citus = false
	var err error
	if reps[0], err = benchLoad(ctx, single, stderr); err != nil {
		return reps, fmt.Errorf("on one node: %w", err)
	}
	dist := o
	dist.Citus = true
	if reps[1], err = benchLoad(ctx, dist, stderr); err != nil {
		return reps, fmt.Errorf("on Citus: %w", err)
	}
	return reps, nil
}

// printLoadSideBySide writes the two runs' main figures in one table.
func printLoadSideBySide(w io.Writer, reps [2]loadReport, workers int) error {
	one, dist := reps[0], reps[1]
	fmt.Fprintf(w, "\nside by side: one PostgreSQL; a Citus coordinator with %d workers on the same machine (on one machine this measures Citus's overhead, not its scale-out)\n\n", workers)
	fmt.Fprintln(w, "| figure | one node | Citus | Citus ÷ one node |")
	fmt.Fprintln(w, "|---|---:|---:|---:|")
	row := func(name string, a, b float64, unit string) {
		ratio := "–"
		if a > 0 {
			ratio = fmt.Sprintf("%.2f", b/a)
		}
		fmt.Fprintf(w, "| %s | %.1f%s | %.1f%s | %s |\n", name, a, unit, b, unit, ratio)
	}
	row("turns/s", one.TurnsPerSecond, dist.TurnsPerSecond, "")
	row("latency p50", one.LatencyP50Ms, dist.LatencyP50Ms, " ms")
	row("latency p99", one.LatencyP99Ms, dist.LatencyP99Ms, " ms")
	row("post-turn jobs done after the last turn", one.JobsDoneMs/1000, dist.JobsDoneMs/1000, " s")
	_, err := fmt.Fprintf(w, "| lost / duplicated / out of order | %d / %d / %d | %d / %d / %d | |\n",
		one.Check.Lost, one.Check.Duplicated, one.Check.OutOfOrder, dist.Check.Lost, dist.Check.Duplicated, dist.Check.OutOfOrder)
	return err
}

// runLoadDistributed is `bench load --distributed`: both runs' reports,
// then the table side by side; --json gets both.
func runLoadDistributed(ctx context.Context, o loadOptions, stdout, stderr io.Writer, jsonPath string) error {
	reps, err := benchLoadDistributed(ctx, o, stderr)
	for i, title := range []string{"one PostgreSQL", fmt.Sprintf("Citus, a coordinator and %d workers", o.CitusWorkers)} {
		if reps[i].Turns == 0 {
			continue
		}
		fmt.Fprintf(stdout, "\n## %s\n\n", title)
		if perr := printLoadReport(stdout, reps[i]); perr != nil && err == nil {
			err = perr
		}
	}
	if reps[1].Turns > 0 {
		if perr := printLoadSideBySide(stdout, reps, o.CitusWorkers); perr != nil && err == nil {
			err = perr
		}
	}
	if jsonPath != "" {
		if werr := writeJSON(jsonPath, map[string]loadReport{"single": reps[0], "citus": reps[1]}); werr != nil && err == nil {
			err = fmt.Errorf("bench load: write --json: %w", werr)
		}
	}
	return err
}
