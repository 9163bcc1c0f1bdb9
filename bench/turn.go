package bench

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"yakor"
	"yakor/account"
	"yakor/app"
	"yakor/turn"
)

// runBenchTurn measures the memory layer's cost per turn (everything but
// the model) in threads of several sizes, for each anchor mode.
func runBenchTurn(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlagSet("turn", args, stdout, stderr)
	sizes := fs.String("messages", "1000,100000", "thread sizes to measure, comma-separated")
	modes := fs.String("anchor-modes", "async,sync", "anchor modes to measure, comma-separated (async, sync, off)")
	turns := fs.Int("turns", 200, "turns measured at each size")
	profile := fs.String("cpuprofile", "", "write the benchmark process's CPU profile over the turns to this file (go tool pprof reads it)")
	rls := fs.Bool("rls", true, "run the turns as the service role, held by row-level security, as yakor serve does (false: as the tables' owner, to see what it costs)")
	cfg, err := parseFlags(fs, args, getenv)
	if err != nil {
		return err
	}
	ns, err := parseCounts(*sizes, 0)
	if err != nil {
		return fmt.Errorf("bench turn: --messages: %w", err)
	}
	db, log, err := openDatabase(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer db.Close()
	var opts []app.Option
	if !*rls {
		opts = append(opts, app.WithTenantDB(db.Owner))
	}
	if *profile != "" {
		stop, err := startProfile(*profile)
		if err != nil {
			return err
		}
		defer stop()
	}
	var results []benchResult
	for _, mode := range strings.Split(*modes, ",") {
		for _, n := range ns {
			fmt.Fprintf(stderr, "bench turn: anchor mode %s, %d messages…\n", mode, n)
			r, err := benchTurn(ctx, db, turnConfig(cfg, strings.TrimSpace(mode)), log, n, *turns, stderr, opts...)
			if err != nil {
				return err
			}
			results = append(results, r)
		}
	}
	as := "the service role (row-level security)"
	if !*rls {
		as = "the tables' owner (no row-level security)"
	}
	fmt.Fprintf(stdout, "yakor bench turn: memory layer cost per turn (everything but the model), offline model, window %d chars, %d turns per size, as %s\n\n", cfg.WindowChars, *turns, as)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "anchor mode\tmessages in thread\tturns\tmemory p50\tmemory p99\tof which anchoring p50\tturn p50 (incl. offline model)\tturn p99\tprompt chars p50\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f ms\t%.2f ms\t%.2f ms\t%.2f ms\t%.2f ms\t%d\t\n", r.Mode, r.Messages, r.Turns, r.MemP50, r.MemP99, r.AncP50, r.TotP50, r.TotP99, r.PromptP50)
	}
	return tw.Flush()
}

// startProfile starts writing the process's CPU profile to path; stop
// ends it and closes the file.
func startProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("bench turn: --cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("bench turn: --cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// turnConfig is what the turn benchmark measures: Yakor as cfg sets it,
// anchoring in mode, its post-turn jobs enqueued and not worked (workers
// 0, as when a separate worker fleet takes them), anchoring the only job
// enqueued (no grading, facts, compaction or embedding jobs) and no
// history search offered to the model.
func turnConfig(cfg app.Config, mode string) app.Config {
	cfg.AnchorMode, cfg.Workers, cfg.SearchRounds = mode, 0, 0
	cfg.Grading, cfg.Facts, cfg.Compaction, cfg.SearchSemantic = false, false, false, false
	return cfg
}

// benchResult is the turn benchmark's result at one thread size, ms.
type benchResult struct {
	Mode      string  `json:"anchor_mode"`
	Messages  int     `json:"messages"` // in the thread
	Turns     int     `json:"turns"`
	MemP50    float64 `json:"memory_p50_ms"`
	MemP99    float64 `json:"memory_p99_ms"`
	TotP50    float64 `json:"turn_p50_ms"` // with the offline model
	TotP99    float64 `json:"turn_p99_ms"`
	AncP50    float64 `json:"anchoring_p50_ms"` // anchoring before the answer (sync mode)
	PromptP50 int     `json:"prompt_chars_p50"`
}

// benchTurn fills a fresh thread of a fresh tenant with n messages and
// runs turns in it (benchTurnOn).
func benchTurn(ctx context.Context, db *database, cfg app.Config, log *slog.Logger, n, turns int, stderr io.Writer, opts ...app.Option) (benchResult, error) {
	scope, err := account.NewStore(db.Owner).CreateTenantUser(ctx, "bench")
	if err != nil {
		return benchResult{}, err
	}
	defer deleteTenant(db.Database, scope.TenantID)
	threads, err := createBenchThreads(ctx, db.Owner, scope, 1, fmt.Sprintf("bench %d", n))
	if err != nil {
		return benchResult{}, err
	}
	if err := copyMessages(ctx, db.Owner, benchTurnJobs(threads[0], n, 0), 0, nil, nil); err != nil {
		return benchResult{}, err
	}
	// Vacuumed, as autovacuum would have by the time a thread grew this
	// large: otherwise it vacuums the fresh million rows during the turns.
	if _, err := db.Owner.Exec(ctx, `VACUUM (ANALYZE) messages`); err != nil {
		return benchResult{}, err
	}
	return benchTurnOn(ctx, db, cfg, log, threads[0], n, turns, stderr, opts...)
}

// benchTurnJobs is the loading of a turn benchmark's thread of n messages:
// one job per core (streams 0) or per stream for a thread of 100,000 or
// more, whose messages then interleave (they are random text; which of
// them the window shows makes no difference to what a turn costs).
func benchTurnJobs(scope yakor.Scope, n, streams int) []copyJob {
	if streams <= 0 {
		streams = runtime.GOMAXPROCS(0)
	}
	parts := 1
	if n >= 100_000 {
		parts = streams
	}
	return splitJob(scope, n, parts, func(part int) func() string {
		rng := rand.New(rand.NewPCG(uint64(n), 7+uint64(part)))
		return func() string { return benchText(rng) }
	})
}

// benchTurnOn runs turns through Yakor built with cfg (turnConfig) and
// opts on db, in scope's thread of n messages, and reads each turn's own
// timings from its trace.
func benchTurnOn(ctx context.Context, db *database, cfg app.Config, log *slog.Logger, scope yakor.Scope, n, turns int, stderr io.Writer, opts ...app.Option) (benchResult, error) {
	a, err := newApp(ctx, cfg, log, db.Database, append([]app.Option{app.WithLocalScope(scope)}, opts...)...)
	if err != nil {
		return benchResult{}, err
	}
	ctx = scope.Context(ctx)
	rng := rand.New(rand.NewPCG(uint64(n), 8))
	if cfg.AnchorMode == turn.AnchorSync {
		// The imported history is anchored first, as a thread that grew
		// turn by turn would be; the turns then measure the steady state.
		start := time.Now()
		var last int64
		if err := db.Owner.QueryRow(ctx, `SELECT coalesce(max(id), 0) FROM messages WHERE tenant_id = $1 AND thread_id = $2`, scope.TenantID, scope.ThreadID).Scan(&last); err != nil {
			return benchResult{}, err
		}
		if _, err := a.Anchors.Apply(ctx, scope, last); err != nil {
			return benchResult{}, err
		}
		fmt.Fprintf(stderr, "bench turn: anchoring %d imported messages took %v\n", n, time.Since(start).Round(time.Millisecond))
		if _, err := db.Owner.Exec(ctx, `ANALYZE microgoals; ANALYZE anchor_decisions; ANALYZE anchor_cursors`); err != nil {
			return benchResult{}, err
		}
	}
	var mem, tot, anc, prompts samples
	var slowest map[string]float64
	steps := map[string]*samples{}
	for i := range turns + 10 {
		out, err := a.Engine.Send(ctx, scope, turn.Input{Content: benchText(rng)}, func(turn.Event) error { return nil })
		if err != nil {
			return benchResult{}, err
		}
		if i < 10 {
			continue // warm-up
		}
		tr, err := a.Engine.FindTrace(ctx, scope, out.TurnID)
		if err != nil {
			return benchResult{}, err
		}
		for k, v := range tr.Timings {
			if steps[k] == nil {
				steps[k] = &samples{}
			}
			steps[k].add(v)
		}
		if tr.Timings["memory"] > slowest["memory"] {
			slowest = tr.Timings
		}
		mem.add(tr.Timings["memory"])
		anc.add(tr.Timings["anchors"])
		tot.add(tr.Timings["total"])
		prompts.add(float64(tr.PromptChars))
	}
	fmt.Fprintf(stderr, "bench turn: %d messages, %s: the slowest turn's timings (ms): %s\n", n, cfg.AnchorMode, timingsLine(slowest))
	fmt.Fprintf(stderr, "bench turn: %d messages, %s: each step's p50 / p99 (ms): %s\n", n, cfg.AnchorMode, stepsLine(steps))
	return benchResult{
		Mode: cfg.AnchorMode, Messages: n, Turns: turns, AncP50: anc.pct(50),
		MemP50: mem.pct(50), MemP99: mem.pct(99), TotP50: tot.pct(50), TotP99: tot.pct(99),
		PromptP50: int(prompts.mid()),
	}, nil
}

// stepsLine lists each step's median and 99th percentile, the largest
// 99th percentile first.
func stepsLine(steps map[string]*samples) string {
	keys := slices.Collect(maps.Keys(steps))
	slices.SortFunc(keys, func(a, b string) int { return cmp.Compare(steps[b].pct(99), steps[a].pct(99)) })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %.2f / %.2f", k, steps[k].pct(50), steps[k].pct(99))
	}
	return strings.Join(parts, ", ")
}

// timingsLine lists a turn's timings, the largest first.
func timingsLine(t map[string]float64) string {
	keys := slices.Collect(maps.Keys(t))
	slices.SortFunc(keys, func(a, b string) int { return cmp.Compare(t[b], t[a]) })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %.2f", k, t[k])
	}
	return strings.Join(parts, ", ")
}
