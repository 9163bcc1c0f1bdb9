package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"yakor"

	"yakor/account"
	"yakor/anchors"
	"yakor/facts"
	"yakor/jobs"
	"yakor/llm"
	"yakor/mnemos"
	"yakor/turn"

	"github.com/jackc/pgx/v5"
)

// runBenchTurn measures the memory layer's cost per turn.
func runBenchTurn(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlagSet("bench turn", args, stdout, stderr)
	sizes := fs.String("messages", "1000,100000", "thread sizes to measure, comma-separated")
	modes := fs.String("anchor-modes", "async,sync", "anchor modes to measure, comma-separated (async, sync, off)")
	turns := fs.Int("turns", 200, "turns measured at each size")
	rls := fs.Bool("rls", true, "run the turns as the service role, held by row-level security, as yakor serve does (false: as the tables' owner, to see what it costs)")
	benchDir := fs.String("bench-dir", "./.yakor-bench", "private cluster folder for the benchmark (used without DATABASE_URL)")
	cfg, err := parseConfig(fs, args, getenv)
	if err != nil {
		return err
	}
	cfg.DataDir = *benchDir
	var ns []int
	for _, f := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return fmt.Errorf("bench: --messages: %q is not a count", f)
		}
		ns = append(ns, n)
	}
	db, log, err := openBenchDatabase(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer db.close(log)

	var results []benchResult
	for _, mode := range strings.Split(*modes, ",") {
		for _, n := range ns {
			fmt.Fprintf(stderr, "bench turn: anchor mode %s, %d messages…\n", mode, n)
			var tdb turnDB = db.svc
			if !*rls {
				tdb = db.pool
			}
			r, err := benchTurn(ctx, db, tdb, cfg, log, strings.TrimSpace(mode), n, *turns)
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

// openBenchDatabase opens the benchmark's database (its own private cluster
// unless DATABASE_URL is set, started with benchServerSettings), logging
// only warnings.
func openBenchDatabase(ctx context.Context, cfg Config, stderr io.Writer) (*database, *slog.Logger, error) {
	log, err := newLogger(Config{LogLevel: "warn", LogFormat: "text"}, stderr)
	if err != nil {
		return nil, nil, err
	}
	db, err := openDatabaseWith(ctx, cfg, benchServerSettings, log)
	return db, log, err
}

// benchServerSettings are the benchmarks' private cluster's settings beyond
// PostgreSQL's defaults, as a server holding millions of messages would be
// tuned: more shared buffers, checkpoints far apart during bulk loads, and
// no WAL for index builds (nothing replicates from it). Durability is as
// served: fsync and synchronous commit stay on (the bulk loaders turn
// synchronous commit off in their own sessions).
var benchServerSettings = map[string]string{
	"shared_buffers":     "1GB",
	"max_wal_size":       "8GB",
	"checkpoint_timeout": "30min",
	"wal_level":          "minimal",
	"max_wal_senders":    "0",
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

// turnDB is what the engine and its layers need of the database: the
// service role's pool or the owner's.
type turnDB interface {
	turn.DB
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// benchTurn fills a fresh thread of a fresh tenant with n messages, runs
// turns through the real engine on tdb and reads each turn's own timings.
func benchTurn(ctx context.Context, db *database, tdb turnDB, cfg Config, log *slog.Logger, mode string, n, turns int) (benchResult, error) {
	scope, err := account.NewStore(db.pool).CreateTenantUser(ctx, "bench")
	if err != nil {
		return benchResult{}, err
	}
	defer func() {
		_, _ = db.pool.Exec(context.Background(), `DELETE FROM tenants WHERE id = $1`, scope.TenantID)
	}()
	threads, err := createBenchThreads(ctx, db.pool, scope, 1, fmt.Sprintf("bench %d", n))
	if err != nil {
		return benchResult{}, err
	}
	if err := copyMessages(ctx, db.pool, benchTurnJobs(threads[0], n, 0), 0, nil, nil); err != nil {
		return benchResult{}, err
	}
	if _, err := db.pool.Exec(ctx, `ANALYZE messages`); err != nil {
		return benchResult{}, err
	}
	return benchTurnOn(ctx, db, tdb, cfg, log, mode, threads[0], n, turns)
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

// benchTurnOn runs turns through the real engine on tdb in scope's thread
// of n messages and reads each turn's own timings.
func benchTurnOn(ctx context.Context, db *database, tdb turnDB, cfg Config, log *slog.Logger, mode string, scope yakor.Scope, n, turns int) (benchResult, error) {
	ctx = scope.Context(ctx)
	rng := rand.New(rand.NewPCG(uint64(n), 8))
	// The async mode's cost is the job's enqueueing; an enqueue-only queue
	// leaves the jobs to no one, as a separate worker fleet would take them.
	anchorSvc := anchors.NewService(tdb, anchors.ServiceConfig{}, nil, log, nil)
	queue, err := jobs.New(db.pool, jobs.Config{Workers: 0, Logger: log}, jobs.Workers{Anchors: anchorSvc})
	if err != nil {
		return benchResult{}, err
	}
	// Every layer a served turn has: facts and long-term memory too (the
	// offline embedder), so "memory" is everything but the model.
	memory := mnemos.NewStore(tdb, mnemos.NewSpace(db.pool, llm.NewOffline(), log), mnemos.Config{}, log, nil)
	engine := turn.NewEngine(tdb, llm.NewOffline(), turn.Config{WindowChars: cfg.WindowChars, AnchorMode: mode}, log, nil).
		WithAnchors(anchorSvc).WithMemory(memory, 3000).WithFacts(facts.NewStore(tdb, facts.Config{}, log)).WithJobs(queue)
	if mode == turn.AnchorSync {
		// The imported history is anchored first, as a thread that grew
		// turn by turn would be; the turns then measure the steady state.
		start := time.Now()
		var last int64
		if err := db.pool.QueryRow(ctx, `SELECT coalesce(max(id), 0) FROM messages WHERE tenant_id = $1 AND thread_id = $2`, scope.TenantID, scope.ThreadID).Scan(&last); err != nil {
			return benchResult{}, err
		}
		if _, err := anchorSvc.Apply(ctx, scope, last); err != nil {
			return benchResult{}, err
		}
		fmt.Fprintf(os.Stderr, "bench turn: anchoring %d imported messages took %v\n", n, time.Since(start).Round(time.Millisecond))
		if _, err := db.pool.Exec(ctx, `ANALYZE microgoals; ANALYZE anchor_decisions; ANALYZE anchor_cursors`); err != nil {
			return benchResult{}, err
		}
	}
	var mem, tot, anc []float64
	var prompts []int
	for i := range turns + 10 {
		out, err := engine.Send(ctx, scope, turn.Input{Content: benchText(rng)}, func(turn.Event) error { return nil })
		if err != nil {
			return benchResult{}, err
		}
		if i < 10 {
			continue // warm-up
		}
		tr, err := engine.FindTrace(ctx, scope, out.TurnID)
		if err != nil {
			return benchResult{}, err
		}
		mem = append(mem, tr.Timings["memory"])
		anc = append(anc, tr.Timings["anchors"])
		tot = append(tot, tr.Timings["total"])
		prompts = append(prompts, tr.PromptChars)
	}
	slices.Sort(mem)
	slices.Sort(anc)
	slices.Sort(tot)
	slices.Sort(prompts)
	return benchResult{
		Mode: mode, Messages: n, Turns: turns, AncP50: pct(anc, 50),
		MemP50: pct(mem, 50), MemP99: pct(mem, 99), TotP50: pct(tot, 50), TotP99: pct(tot, 99),
		PromptP50: prompts[len(prompts)/2],
	}, nil
}

func pct(sorted []float64, p int) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p+99)/100 - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

var benchWords = strings.Fields(`price list order cost total delivery invoice discount sheet board panel
meter kilogram project deadline budget client supplier цена прайс заказ стоимость доставка счёт скидка
лист плита панель метр проект срок бюджет клиент поставщик ЛДСП МДФ фанера 1250 3400 руб USD`)

// benchText makes a message of 20–400 characters from a mixed vocabulary.
func benchText(rng *rand.Rand) string {
	var b strings.Builder
	target := 20 + rng.IntN(380)
	for b.Len() < target {
		b.WriteString(benchWords[rng.IntN(len(benchWords))])
		b.WriteByte(' ')
	}
	return strings.TrimSpace(b.String())
}
