package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"strings"
	"time"
	"unicode/utf8"

	"yakor"
	"yakor/app"
	"yakor/mnemos"
	"yakor/turn"
)

// runBenchMnemos measures long-term memory's few-shot recall with many
// experiences stored: --entries L1 examples (plus 1% as many L2 notes and 2%
// as many L3 warnings) of varied synthetic questions in English and Russian,
// embedded with the offline embedder and COPY'd in; then Store.Recall on
// fresh questions, the L1 query's plan, and the cost recall adds to a turn.
func runBenchMnemos(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlagSet("mnemos", args, stdout, stderr)
	var o mnemosOptions
	fs.IntVar(&o.entries, "entries", 100_000, "L1 experiences (graded examples) to load, spread evenly over --tenants; 1% as many L2 notes and 2% as many L3 warnings are added")
	fs.IntVar(&o.queries, "queries", 300, "recalls measured: a third paraphrases of loaded questions, a third new questions on the same themes, a third unrelated")
	fs.IntVar(&o.turns, "turns", 200, "turns measured without and with recall each, alternating")
	fs.IntVar(&o.tenants, "tenants", 1, "tenants the entries are spread over; the first is measured")
	fs.IntVar(&o.messages, "messages", 1000, "messages in the thread of the per-turn measurement")
	fs.BoolVar(&o.withIndex, "load-with-index", false, "COPY into the live HNSW indexes instead of dropping them and building them after the load")
	fs.StringVar(&o.workMem, "maintenance-work-mem", "1GB", "maintenance_work_mem of the session that builds the HNSW indexes")
	jsonPath := fs.String("json", "", "also write the results as JSON to this file")
	cfg, err := parseFlags(fs, args, getenv)
	switch {
	case err != nil:
		return err
	case o.entries <= 0 || o.queries <= 0 || o.turns <= 0 || o.messages < 0:
		return errors.New("bench mnemos: --entries, --queries and --turns must be positive, --messages not negative")
	case o.tenants < 1 || o.tenants > o.entries:
		return errors.New("bench mnemos: --tenants must be between 1 and --entries")
	case cfg.MemoryBudget == 0:
		return errors.New("bench mnemos: --memory-budget is 0: recall is off")
	}
	db, log, err := openDatabase(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer db.Close()
	rep, err := benchMnemos(ctx, db, cfg, log, o, stderr)
	if err != nil {
		return err
	}
	printMnemos(stdout, rep)
	return writeJSON(*jsonPath, rep)
}

// mnemosOptions are the settings of one mnemos run.
type mnemosOptions struct {
	entries, queries, turns, tenants, messages int
	withIndex                                  bool
	workMem                                    string
}

// mnemosApps are Yakor as app.New builds it from cfg, twice: without
// long-term memory in prompts (memory budget 0) and with it. Both run on
// the owner's pool, with anchoring off, no history search offered to the
// model, and their post-turn jobs kept in memory and never run: the per-turn
// figures are the prompt's layers alone.
func mnemosApps(ctx context.Context, db *database, cfg app.Config, log *slog.Logger) (off, on *app.App, err error) {
	cfg.AnchorMode, cfg.SearchRounds = turn.AnchorOff, 0
	opts := []app.Option{app.WithTenantDB(db.Owner), app.WithInlineJobs()}
	if on, err = newApp(ctx, cfg, log, db.Database, opts...); err != nil {
		return nil, nil, err
	}
	cfg.MemoryBudget = 0
	off, err = newApp(ctx, cfg, log, db.Database, opts...)
	return off, on, err
}

// benchMnemos loads the experiences and measures recall, its query's plan
// and accuracy, and what it adds to a turn.
func benchMnemos(ctx context.Context, db *database, cfg app.Config, log *slog.Logger, o mnemosOptions, stderr io.Writer) (mnemosReport, error) {
	rep := mnemosReport{Tenants: o.tenants, Queries: o.queries, Turns: o.turns, ThreadMessages: o.messages, MemoryBudget: cfg.MemoryBudget, MinScore: cfg.MemoryMinScore}
	off, on, err := mnemosApps(ctx, db, cfg, log)
	if err != nil {
		return rep, err
	}
	space := on.Memory.Space()
	if rep.Space, rep.Dims, err = space.ID(ctx); err != nil {
		return rep, err
	}
	gen := mnemosThemes
	ld, err := loadMnemos(ctx, db, space, gen, o, stderr)
	if ld != nil {
		defer func() {
			for _, s := range ld.scopes {
				deleteTenant(db.Database, s.TenantID)
			}
		}()
	}
	if err != nil {
		return rep, err
	}
	rep.MinLexical = on.Memory.Config().Recall.MinLexical
	rep.Loaded, rep.MeasuredTenant = ld.total, ld.measured
	rep.LoadSeconds, rep.CopySeconds, rep.IndexSeconds, rep.VacuumSeconds = ld.took.Seconds(), ld.copyTook.Seconds(), ld.indexTook.Seconds(), ld.vacuumTook.Seconds()
	rep.IndexLoad = ld.strategy
	scope := ld.scopes[0]
	fmt.Fprintf(stderr, "bench mnemos: %d recalls…\n", o.queries)
	rng := rand.New(rand.NewPCG(11, 13))
	asks := make([]mnemosAsk, o.queries)
	for i := range asks {
		asks[i] = gen.ask(rng, ld.sample, i)
	}
	fmt.Fprintln(stderr, "bench mnemos: the labelled set…")
	if rep.Set, err = sweepMnemosSet(ctx, db.Owner, space, on.Memory.Config(), scope, log); err != nil {
		return rep, err
	}
	vectors := on.Memory.Config()
	vectors.Recall.NoLexical = true
	for _, store := range []*mnemos.Store{mnemos.NewStore(db.Owner, space, vectors, log, nil), on.Memory} {
		rows, err := mnemosRecalls(ctx, store, scope, gen, rng, ld.sample, asks)
		if err != nil {
			return rep, err
		}
		rep.Recall = append(rep.Recall, rows...)
	}
	// The L1 query's plan, its first (custom) plan and the one a pooled
	// connection settles on after running it a few times, and the index's
	// accuracy against an exact scan.
	fmt.Fprintln(stderr, "bench mnemos: plans and index accuracy…")
	if rep.Plan, err = explainMnemos(ctx, db, space, scope, asks); err != nil {
		return rep, err
	}
	if rep.Accuracy, err = mnemosAccuracy(ctx, db, space, scope, asks[:min(60, len(asks))]); err != nil {
		return rep, err
	}
	fmt.Fprintf(stderr, "bench mnemos: %d turns without and with recall on a thread of %d messages…\n", o.turns, o.messages)
	if rep.TurnOff, rep.TurnOn, err = benchMnemosTurns(ctx, db, [2]*app.App{off, on}, scope, gen, ld.sample, o.messages, o.turns); err != nil {
		return rep, err
	}
	rep.CostAddedMS = rep.TurnOn.MemoryP50 - rep.TurnOff.MemoryP50
	rep.CostAddedNoSearchMS = rep.TurnOn.NoSearchP50 - rep.TurnOff.NoSearchP50
	return rep, nil
}

// mnemosRecalls measures store.Recall on asks, after 20 of warm-up on
// questions not measured: all of them, then by kind.
func mnemosRecalls(ctx context.Context, store *mnemos.Store, scope yakor.Scope, gen *mnemosGen, rng *rand.Rand, sample []mnemosQ, asks []mnemosAsk) ([]mnemosRecall, error) {
	for i := range 20 {
		a := gen.ask(rng, sample, i)
		if _, err := store.Recall(ctx, scope, a.text, a.lang); err != nil {
			return nil, err
		}
	}
	byKind := map[string]*mnemosSamples{}
	all := &mnemosSamples{}
	for _, a := range asks {
		start := time.Now()
		r, err := store.Recall(ctx, scope, a.text, a.lang)
		if err != nil {
			return nil, err
		}
		took := ms(time.Since(start))
		for _, s := range []*mnemosSamples{all, byKind[a.kind]} {
			if s == nil {
				s = &mnemosSamples{}
				byKind[a.kind] = s
			}
			s.add(took, r)
		}
	}
	out := []mnemosRecall{all.row("all")}
	for _, k := range mnemosKinds {
		if s := byKind[k]; s != nil {
			out = append(out, s.row(k))
		}
	}
	for i := range out {
		out[i].Lexical = !store.Config().Recall.NoLexical
	}
	return out, nil
}

// mnemosReport is the benchmark's result, as --json writes it.
type mnemosReport struct {
	Space          int32          `json:"space"`
	Dims           int            `json:"dims"`
	Tenants        int            `json:"tenants"`
	Loaded         [4]int         `json:"loaded_by_level"`          // [0] all levels, [1..3] L1..L3, every tenant
	MeasuredTenant [4]int         `json:"measured_tenant_by_level"` // the same for the measured tenant
	IndexLoad      string         `json:"index_load"`               // how the HNSW indexes met the load
	LoadSeconds    float64        `json:"load_seconds"`
	CopySeconds    float64        `json:"copy_seconds"`  // generating, embedding and COPY
	IndexSeconds   float64        `json:"index_seconds"` // building the indexes after the load (0 when kept)
	VacuumSeconds  float64        `json:"vacuum_seconds"`
	MemoryBudget   int            `json:"memory_budget_chars"`
	MinScore       float64        `json:"min_score"`
	MinLexical     float64        `json:"min_lexical"`
	Queries        int            `json:"queries"`
	Recall         []mnemosRecall `json:"recall"` // the vector leg alone, then both legs
	// Set is the labelled set's figures over a grid of thresholds.
	Set  []mnemosSetScore `json:"labelled_set"`
	Plan mnemosPlan       `json:"plan"`
	// Accuracy is the L1 index scan's accuracy against an exact scan: all
	// questions, then by kind.
	Accuracy       []mnemosAccuracyRow `json:"index_accuracy"`
	ThreadMessages int                 `json:"thread_messages"`
	Turns          int                 `json:"turns"`
	TurnOff        mnemosTurnStats     `json:"turn_without_recall"`
	TurnOn         mnemosTurnStats     `json:"turn_with_recall"`
	// CostAddedMS is the difference of the memory layer's p50s;
	// CostAddedNoSearchMS the same without the history searches' time.
	CostAddedMS         float64 `json:"cost_added_ms"`
	CostAddedNoSearchMS float64 `json:"cost_added_without_searches_ms"`
}

type mnemosRecall struct {
	Lexical bool       `json:"lexical"` // the lexical leg beside the vector leg
	Kind    string     `json:"kind"`
	N       int        `json:"n"`
	P50     float64    `json:"p50_ms"`
	P95     float64    `json:"p95_ms"`
	P99     float64    `json:"p99_ms"`
	Max     float64    `json:"max_ms"`
	Entries float64    `json:"entries_mean"`          // entries in the block
	ByLevel [4]float64 `json:"entries_mean_by_level"` // [1..3] L1..L3
	Chars   float64    `json:"chars_mean"`            // characters of the block
	Empty   float64    `json:"empty_share"`           // share of recalls with no block
}

type mnemosPlan struct {
	Index         string `json:"index"`
	CustomUses    bool   `json:"custom_plan_uses_index"`
	CustomPlan    string `json:"custom_plan"`
	PreparedUses  bool   `json:"prepared_plan_uses_index"`
	PreparedGenre string `json:"prepared_plan_kind"` // "generic" or "custom"
	PreparedPlan  string `json:"prepared_plan"`
	EfSearch      string `json:"hnsw_ef_search"`
	IterativeScan string `json:"hnsw_iterative_scan"`
}

type mnemosTurnStats struct {
	N              int     `json:"n"`
	MemoryP50      float64 `json:"memory_p50_ms"`
	MemoryP99      float64 `json:"memory_p99_ms"`
	NoSearchP50    float64 `json:"memory_without_searches_p50_ms"` // memory less the history searches the model asked for
	NoSearchP99    float64 `json:"memory_without_searches_p99_ms"`
	RecallP50      float64 `json:"recall_p50_ms"` // the trace's memory_recall
	RecallP99      float64 `json:"recall_p99_ms"`
	TotalP50       float64 `json:"total_p50_ms"`
	PromptCharsP50 int     `json:"prompt_chars_p50"`
	MemoryChars    float64 `json:"memory_layer_chars_mean"`
	Searches       int     `json:"searches"` // history searches the offline model made
}

// mnemosSamples gathers one kind of recall.
type mnemosSamples struct {
	took           samples
	entries, chars int
	byLevel        [4]int
	empty          int
}

func (s *mnemosSamples) add(took float64, r mnemos.Recall) {
	s.took = append(s.took, took)
	s.entries += len(r.Entries)
	s.chars += utf8.RuneCountInString(r.Text)
	for _, e := range r.Entries {
		s.byLevel[e.Level]++
	}
	if len(r.Entries) == 0 {
		s.empty++
	}
}

func (s *mnemosSamples) row(kind string) mnemosRecall {
	n := float64(len(s.took))
	r := mnemosRecall{Kind: kind, N: len(s.took), P50: s.took.pct(50), P95: s.took.pct(95), P99: s.took.pct(99), Max: s.took.max(),
		Entries: float64(s.entries) / n, Chars: float64(s.chars) / n, Empty: float64(s.empty) / n}
	for l := 1; l <= 3; l++ {
		r.ByLevel[l] = float64(s.byLevel[l]) / n
	}
	return r
}

func printMnemos(w io.Writer, r mnemosReport) {
	m := r.MeasuredTenant
	fmt.Fprintf(w, "yakor bench mnemos: %d experiences (%d L1 examples, %d L2 notes, %d L3 warnings) over %d tenant(s), offline embedder (%d dims, space %d); measured tenant holds %d L1, %d L2, %d L3\n",
		r.Loaded[0], r.Loaded[1], r.Loaded[2], r.Loaded[3], r.Tenants, r.Dims, r.Space, m[1], m[2], m[3])
	fmt.Fprintf(w, "loaded in %.1f s (generate + embed + COPY %.1f s; HNSW indexes: %s, %.1f s; VACUUM ANALYZE %.1f s)\n\n", r.LoadSeconds, r.CopySeconds, r.IndexLoad, r.IndexSeconds, r.VacuumSeconds)
	fmt.Fprintf(w, "Store.Recall, %d questions (budget %d chars, min score %.2f, min lexical %.2f), with the vector leg alone and with both legs:\n\n", r.Queries, r.MemoryBudget, r.MinScore, r.MinLexical)
	fmt.Fprintln(w, "| legs | questions | n | p50 | p95 | p99 | max | entries returned (L1/L2/L3) | block chars | no block |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, x := range r.Recall {
		fmt.Fprintf(w, "| %s | %s | %d | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.2f (%.2f/%.2f/%.2f) | %.0f | %.0f%% |\n", map[bool]string{false: "vector", true: "vector + lexical"}[x.Lexical],
			x.Kind, x.N, x.P50, x.P95, x.P99, x.Max, x.Entries, x.ByLevel[1], x.ByLevel[2], x.ByLevel[3], x.Chars, 100*x.Empty)
	}
	printMnemosSet(w, r.Set, mnemos.RecallConfig{MinSimilarity: r.MinScore, MinLexical: r.MinLexical})
	yes := map[bool]string{true: "YES", false: "NO — not used"}
	fmt.Fprintf(w, "\nL1 recall query, HNSW index %s used: first (custom) plan %s; %s plan after 6 executions on one connection %s\n",
		r.Plan.Index, yes[r.Plan.CustomUses], r.Plan.PreparedGenre, yes[r.Plan.PreparedUses])
	fmt.Fprintf(w, "L1 index scan against an exact scan (hnsw.ef_search %s, hnsw.iterative_scan %s; a row as near as the exact k-th counts as found):\n",
		r.Plan.EfSearch, r.Plan.IterativeScan)
	for _, a := range r.Accuracy {
		fmt.Fprintf(w, "    %s (%d): %.1f%% of the 12 nearest found, %.1f%% of the 3 nearest; L1 query p50 %.2f ms as planned, %.2f ms exact (index scans off)\n",
			a.Kind, a.N, 100*a.Top12, 100*a.Top3, a.IndexP50, a.ExactP50)
	}
	fmt.Fprintln(w, "EXPLAIN (ANALYZE, BUFFERS), custom plan:")
	for _, l := range strings.Split(strings.TrimRight(r.Plan.CustomPlan, "\n"), "\n") {
		fmt.Fprintln(w, "    "+l)
	}
	if r.Plan.PreparedPlan != r.Plan.CustomPlan {
		fmt.Fprintf(w, "EXPLAIN (ANALYZE, BUFFERS) EXECUTE, %s plan:\n", r.Plan.PreparedGenre)
		for _, l := range strings.Split(strings.TrimRight(r.Plan.PreparedPlan, "\n"), "\n") {
			fmt.Fprintln(w, "    "+l)
		}
	}
	fmt.Fprintf(w, "\nper turn (offline model, anchors off, thread of %d messages, %d turns each, alternating; memory = everything but the model):\n\n", r.ThreadMessages, r.Turns)
	fmt.Fprintln(w, "| turn | n | memory p50 | memory p99 | memory less searches p50 | p99 | of which recall p50 | recall p99 | turn p50 | prompt chars p50 | memory block chars | history searches |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, t := range []struct {
		name string
		s    mnemosTurnStats
	}{{"without recall", r.TurnOff}, {"with recall", r.TurnOn}} {
		fmt.Fprintf(w, "| %s | %d | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %d | %.0f | %d |\n",
			t.name, t.s.N, t.s.MemoryP50, t.s.MemoryP99, t.s.NoSearchP50, t.s.NoSearchP99, t.s.RecallP50, t.s.RecallP99, t.s.TotalP50, t.s.PromptCharsP50, t.s.MemoryChars, t.s.Searches)
	}
	fmt.Fprintf(w, "\ncost added by recall (difference of the memory p50s): %+.2f ms per turn; less the history searches the offline model made: %+.2f ms\n", r.CostAddedMS, r.CostAddedNoSearchMS)
}
