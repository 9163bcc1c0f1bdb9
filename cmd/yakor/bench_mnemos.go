package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"yakor"
	"yakor/account"
	"yakor/anchors"
	"yakor/history"
	"yakor/llm"
	"yakor/mnemos"
	"yakor/turn"
)

// runBenchMnemos measures long-term memory's few-shot recall with many
// experiences stored: --entries L1 examples (plus 1% as many L2 notes and 2%
// as many L3 warnings) of varied synthetic questions in English and Russian,
// embedded with the offline embedder and COPY'd in; then Store.Recall on
// fresh questions, the L1 query's plan, and the cost recall adds to a turn.
func runBenchMnemos(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlagSet("bench mnemos", stderr)
	entries := fs.Int("entries", 100_000, "L1 experiences (graded examples) to load, spread evenly over --tenants; 1% as many L2 notes and 2% as many L3 warnings are added")
	queries := fs.Int("queries", 300, "recalls measured: a third paraphrases of loaded questions, a third new questions on the same themes, a third unrelated")
	turns := fs.Int("turns", 200, "turns measured without and with recall each, alternating")
	tenants := fs.Int("tenants", 1, "tenants the entries are spread over; the first is measured")
	messages := fs.Int("messages", 1000, "messages in the thread of the per-turn measurement")
	withIndex := fs.Bool("load-with-index", false, "COPY into the live HNSW indexes instead of dropping them and building them after the load")
	workMem := fs.String("maintenance-work-mem", "1GB", "maintenance_work_mem of the session that builds the HNSW indexes")
	jsonPath := fs.String("json", "", "also write the results as JSON to this file")
	benchDir := fs.String("bench-dir", "./.yakor-bench", "private cluster folder for the benchmark (used without DATABASE_URL)")
	cfg, err := parseConfig(fs, args, getenv)
	if err != nil {
		return err
	}
	cfg.DataDir = *benchDir
	switch {
	case *entries <= 0 || *queries <= 0 || *turns <= 0 || *messages < 0:
		return errors.New("bench mnemos: --entries, --queries and --turns must be positive, --messages not negative")
	case *tenants < 1 || *tenants > *entries:
		return errors.New("bench mnemos: --tenants must be between 1 and --entries")
	case cfg.MemoryBudget == 0:
		return errors.New("bench mnemos: --memory-budget is 0: recall is off")
	}
	db, log, err := openBenchDatabase(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer db.close(log)

	rep := mnemosReport{Tenants: *tenants, Queries: *queries, Turns: *turns, ThreadMessages: *messages, MemoryBudget: cfg.MemoryBudget, MinScore: cfg.MemoryMinScore}
	space := mnemos.NewSpace(db.pool, llm.NewOffline(), log)
	spaceID, dims, err := space.ID(ctx)
	if err != nil {
		return err
	}
	rep.Space, rep.Dims = spaceID, dims

	gen := mnemosThemes
	ld, err := loadMnemos(ctx, db, space, gen, *entries, *tenants, *withIndex, *workMem, stderr)
	if ld != nil {
		defer func() {
			for _, s := range ld.scopes {
				_, _ = db.pool.Exec(context.Background(), `DELETE FROM tenants WHERE id = $1`, s.TenantID)
			}
		}()
	}
	if err != nil {
		return err
	}
	rep.Loaded, rep.MeasuredTenant = ld.total, ld.measured
	rep.LoadSeconds, rep.CopySeconds, rep.IndexSeconds, rep.VacuumSeconds = ld.took.Seconds(), ld.copyTook.Seconds(), ld.indexTook.Seconds(), ld.vacuumTook.Seconds()
	rep.IndexLoad = ld.strategy
	scope := ld.scopes[0]

	store := mnemos.NewStore(db.pool, space, mnemos.Config{
		MergeThreshold: cfg.MemoryMerge,
		Recall:         mnemos.RecallConfig{Budget: cfg.MemoryBudget, MinSimilarity: cfg.MemoryMinScore},
	}, log, nil)

	// Recall on fresh questions.
	fmt.Fprintf(stderr, "bench mnemos: %d recalls…\n", *queries)
	rng := rand.New(rand.NewPCG(11, 13))
	asks := make([]mnemosAsk, *queries)
	for i := range asks {
		asks[i] = gen.ask(rng, ld.sample, i)
	}
	for i := range 20 { // warm-up, on questions not measured
		a := gen.ask(rng, ld.sample, i)
		if _, err := store.Recall(ctx, scope, a.text, a.lang); err != nil {
			return err
		}
	}
	byKind := map[string]*mnemosSamples{}
	all := &mnemosSamples{}
	for _, a := range asks {
		start := time.Now()
		r, err := store.Recall(ctx, scope, a.text, a.lang)
		if err != nil {
			return err
		}
		took := float64(time.Since(start).Microseconds()) / 1000
		for _, s := range []*mnemosSamples{all, byKind[a.kind]} {
			if s == nil {
				s = &mnemosSamples{}
				byKind[a.kind] = s
			}
			s.add(took, r)
		}
	}
	rep.Recall = append(rep.Recall, all.row("all"))
	for _, k := range mnemosKinds {
		if s := byKind[k]; s != nil {
			rep.Recall = append(rep.Recall, s.row(k))
		}
	}

	// The L1 query's plan, its first (custom) plan and the one a pooled
	// connection settles on after running it a few times, and the index's
	// accuracy against an exact scan.
	fmt.Fprintln(stderr, "bench mnemos: plans and index accuracy…")
	rep.Plan, err = explainMnemos(ctx, db, space, scope, asks)
	if err != nil {
		return err
	}
	rep.Accuracy, err = mnemosAccuracy(ctx, db, space, scope, asks[:min(60, len(asks))])
	if err != nil {
		return err
	}

	// The cost recall adds to a turn.
	fmt.Fprintf(stderr, "bench mnemos: %d turns without and with recall on a thread of %d messages…\n", *turns, *messages)
	rep.TurnOff, rep.TurnOn, err = benchMnemosTurns(ctx, db, cfg, log, store, scope, gen, ld.sample, *messages, *turns)
	if err != nil {
		return err
	}
	rep.CostAddedMS = rep.TurnOn.MemoryP50 - rep.TurnOff.MemoryP50
	rep.CostAddedNoSearchMS = rep.TurnOn.NoSearchP50 - rep.TurnOff.NoSearchP50

	printMnemos(stdout, rep)
	if *jsonPath != "" {
		out, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(*jsonPath, append(out, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
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
	Queries        int            `json:"queries"`
	Recall         []mnemosRecall `json:"recall"`
	Plan           mnemosPlan     `json:"plan"`
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
	took           []float64
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
	slices.Sort(s.took)
	n := float64(len(s.took))
	r := mnemosRecall{Kind: kind, N: len(s.took), P50: pct(s.took, 50), P95: pct(s.took, 95), P99: pct(s.took, 99), Max: s.took[len(s.took)-1],
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
	fmt.Fprintf(w, "Store.Recall, %d questions (budget %d chars, min score %.2f):\n\n", r.Queries, r.MemoryBudget, r.MinScore)
	fmt.Fprintln(w, "| questions | n | p50 | p95 | p99 | max | entries returned (L1/L2/L3) | block chars | no block |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	for _, x := range r.Recall {
		fmt.Fprintf(w, "| %s | %d | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.2f (%.2f/%.2f/%.2f) | %.0f | %.0f%% |\n",
			x.Kind, x.N, x.P50, x.P95, x.P99, x.Max, x.Entries, x.ByLevel[1], x.ByLevel[2], x.ByLevel[3], x.Chars, 100*x.Empty)
	}
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

// mnemosLoaded is what loadMnemos stored.
type mnemosLoaded struct {
	scopes                    []yakor.Scope
	total, measured           [4]int
	sample                    []mnemosQ // L1 questions of the measured tenant
	took, copyTook, indexTook time.Duration
	vacuumTook                time.Duration
	strategy                  string
}

// loadMnemos creates the tenants and loads their experiences. Unless told
// to keep them, or other rows of the space use them, the space's HNSW
// indexes are dropped first and built again afterwards, with the very
// definitions they had: one bulk build is much faster than as many inserts
// into the graph.
func loadMnemos(ctx context.Context, db *database, space *mnemos.Space, gen *mnemosGen, entries, tenants int, keep bool, workMem string, stderr io.Writer) (*mnemosLoaded, error) {
	start := time.Now()
	ld := &mnemosLoaded{}
	spaceID, _, err := space.ID(ctx)
	if err != nil {
		return nil, err
	}
	accounts := account.NewStore(db.pool)
	for t := range tenants {
		s, err := accounts.CreateTenantUser(ctx, fmt.Sprintf("bench-mnemos-%d", t))
		if err != nil {
			return ld, err
		}
		ld.scopes = append(ld.scopes, s)
	}
	defs, err := mnemosIndexDefs(ctx, db, spaceID)
	if err != nil {
		return ld, err
	}
	if len(defs) != 3 {
		return ld, fmt.Errorf("bench mnemos: space %d has %d HNSW indexes on experiences, want 3", spaceID, len(defs))
	}
	var others int
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM experiences WHERE space_id = $1`, spaceID).Scan(&others); err != nil {
		return ld, err
	}
	rebuild := !keep && others == 0
	switch {
	case keep:
		ld.strategy = "kept during the load (--load-with-index)"
	case others > 0:
		ld.strategy = fmt.Sprintf("kept during the load (%d rows of other tenants use them)", others)
	default:
		ld.strategy = "dropped, built after the load with maintenance_work_mem " + workMem
		for _, d := range defs {
			if _, err := db.pool.Exec(ctx, `DROP INDEX `+pgx.Identifier{d.name}.Sanitize()); err != nil {
				return ld, err
			}
		}
		// Whatever happens, the indexes are there again afterwards.
		defer func() {
			for _, d := range defs {
				_, _ = db.pool.Exec(context.WithoutCancel(ctx), strings.Replace(d.def, "CREATE INDEX ", "CREATE INDEX IF NOT EXISTS ", 1))
			}
		}()
	}

	copyStart := time.Now()
	for t, scope := range ld.scopes {
		n1 := entries / tenants
		if t == 0 {
			n1 += entries % tenants
		}
		levels := [4]int{0, n1, (n1 + 50) / 100, (n1 + 25) / 50}
		rng := rand.New(rand.NewPCG(uint64(t), 3))
		if err := copyMnemos(ctx, db, space, gen, rng, scope, levels, t == 0, ld, stderr); err != nil {
			return ld, err
		}
		for l := 1; l <= 3; l++ {
			ld.total[l] += levels[l]
			ld.total[0] += levels[l]
			if t == 0 {
				ld.measured[l] = levels[l]
				ld.measured[0] += levels[l]
			}
		}
	}
	ld.copyTook = time.Since(copyStart)
	fmt.Fprintf(stderr, "bench mnemos: %d experiences copied in %v\n", ld.total[0], ld.copyTook.Round(time.Millisecond))

	if rebuild {
		indexStart := time.Now()
		conn, err := db.pool.Acquire(ctx)
		if err != nil {
			return ld, err
		}
		defer conn.Release()
		if _, err := conn.Exec(ctx, `SELECT set_config('maintenance_work_mem', $1, false)`, workMem); err != nil {
			return ld, err
		}
		for _, d := range defs {
			t := time.Now()
			if _, err := conn.Exec(ctx, d.def); err != nil {
				return ld, fmt.Errorf("bench mnemos: rebuild %s: %w", d.name, err)
			}
			fmt.Fprintf(stderr, "bench mnemos: built %s in %v\n", d.name, time.Since(t).Round(time.Millisecond))
		}
		if _, err := conn.Exec(ctx, `RESET maintenance_work_mem`); err != nil {
			return ld, err
		}
		ld.indexTook = time.Since(indexStart)
		after, err := mnemosIndexDefs(ctx, db, spaceID)
		if err != nil {
			return ld, err
		}
		if !slices.Equal(after, defs) {
			return ld, fmt.Errorf("bench mnemos: the rebuilt indexes differ: %v, was %v", after, defs)
		}
	}
	// VACUUM too, as a table in steady state would be: an autovacuum of
	// the fresh rows would otherwise run during the measurements.
	vacuumStart := time.Now()
	if _, err := db.pool.Exec(ctx, `VACUUM (ANALYZE) experiences`); err != nil {
		return ld, err
	}
	ld.vacuumTook = time.Since(vacuumStart)
	ld.took = time.Since(start)
	return ld, nil
}

type mnemosIndexDef struct{ name, def string }

// mnemosIndexDefs lists the space's HNSW indexes on experiences, by name.
func mnemosIndexDefs(ctx context.Context, db *database, space int32) ([]mnemosIndexDef, error) {
	rows, err := db.pool.Query(ctx, `SELECT c.relname::text, pg_get_indexdef(i.indexrelid)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = 'experiences'::regclass AND c.relname LIKE 'experiences\_vec\_s' || $1::int || '\_l%'
ORDER BY c.relname`, space)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (mnemosIndexDef, error) {
		var d mnemosIndexDef
		return d, r.Scan(&d.name, &d.def)
	})
}

// copyMnemos generates, embeds and COPYs one tenant's experiences, in
// batches; for the measured tenant it keeps a sample of the L1 questions.
func copyMnemos(ctx context.Context, db *database, space *mnemos.Space, gen *mnemosGen, rng *rand.Rand, scope yakor.Scope, levels [4]int, measured bool, ld *mnemosLoaded, stderr io.Writer) error {
	type row struct {
		level                           int
		topic, question, answer, reason string
		score                           *int16
	}
	var todo []int // the levels of the rows, L2 and L3 spread among the L1
	for l := 1; l <= 3; l++ {
		for range levels[l] {
			todo = append(todo, l)
		}
	}
	rng.Shuffle(len(todo), func(i, j int) { todo[i], todo[j] = todo[j], todo[i] })
	const batch = 5000
	seen := 0
	for done := 0; done < len(todo); done += batch {
		rows := make([]row, min(batch, len(todo)-done))
		texts := make([]string, len(rows))
		for i := range rows {
			r := row{level: todo[done+i]}
			score := int16(4 + rng.IntN(2))
			switch r.level {
			case mnemos.L1:
				q := gen.question(rng)
				r.question, r.answer = q.text(rng), gen.answer(rng, q)
				r.reason = "correct and complete"
				r.score = &score
				if measured {
					// Reservoir sample of the questions, for paraphrases.
					if seen++; len(ld.sample) < 5000 {
						ld.sample = append(ld.sample, q)
					} else if j := rng.IntN(seen); j < len(ld.sample) {
						ld.sample[j] = q
					}
				}
			case mnemos.L2:
				r.topic, r.question, r.answer = gen.note(rng)
			case mnemos.L3:
				q := gen.question(rng)
				r.question = q.text(rng)
				r.answer, r.reason = gen.wrong(rng, q)
				score = int16(1 + rng.IntN(2))
				r.score = &score
			}
			if r.level != mnemos.L2 {
				r.topic = anchors.OfflineExtract(r.question, nil).Topic
				texts[i] = r.question
			} else {
				texts[i] = r.topic + "\n" + r.question + "\n" + string([]rune(r.answer)[:min(500, utf8.RuneCountInString(r.answer))])
			}
			rows[i] = r
		}
		spaceID, vecs, err := space.Embed(ctx, texts)
		if err != nil {
			return err
		}
		_, err = db.pool.CopyFrom(ctx, pgx.Identifier{"experiences"},
			[]string{"tenant_id", "level", "topic", "question", "answer", "reason", "score", "source", "source_message_ids", "space_id", "embedding"},
			pgx.CopyFromSlice(len(rows), func(i int) ([]any, error) {
				r := rows[i]
				return []any{scope.TenantID, int16(r.level), r.topic, r.question, r.answer, r.reason, r.score, mnemos.SourceModel, []int64{}, spaceID, vecs[i]}, nil
			}))
		if err != nil {
			return fmt.Errorf("bench mnemos: copy experiences: %w", err)
		}
		if n := done + len(rows); n%50_000 == 0 || n == len(todo) {
			fmt.Fprintf(stderr, "bench mnemos: tenant %s: %d of %d experiences loaded\n", scope.TenantID[:8], n, len(todo))
		}
	}
	return nil
}

// mnemosRecallSQL is recall's query for a level (mnemos/recall.go's
// recallSQL): $1 tenant, $2 vector, $3 rows.
func mnemosRecallSQL(space int32, dims, level int) string {
	return fmt.Sprintf(`SELECT id, level, topic, question, answer, reason, url,
    1 - (embedding::vector(%[2]d) <=> $2::vector(%[2]d)) AS similarity
FROM experiences
WHERE tenant_id = $1 AND space_id = %[1]d AND level = %[3]d
ORDER BY embedding::vector(%[2]d) <=> $2::vector(%[2]d)
LIMIT $3`, space, dims, level)
}

// mnemosVectorLiteral is a vector in a plan, shortened in the output.
var mnemosVectorLiteral = regexp.MustCompile(`'\[[-0-9.,e]*\]'`)

// mnemosRecallRows is the rows recall asks for per level: 4 × its limit of
// 3 examples, at least 8.
const mnemosRecallRows = 12

// explainMnemos explains the L1 recall query twice: with the values in
// place (the custom plan every first execution gets), and as a prepared
// statement after six executions, when PostgreSQL may switch a connection
// to a generic plan — as recall's statements, cached by pgx on each pooled
// connection, are.
func explainMnemos(ctx context.Context, db *database, space *mnemos.Space, scope yakor.Scope, asks []mnemosAsk) (mnemosPlan, error) {
	spaceID, dims, err := space.ID(ctx)
	if err != nil {
		return mnemosPlan{}, err
	}
	p := mnemosPlan{Index: fmt.Sprintf("experiences_vec_s%d_l1", spaceID)}
	q := mnemosRecallSQL(spaceID, dims, mnemos.L1)
	vec := func(i int) (pgvector.Vector, error) {
		_, v, err := space.EmbedOne(ctx, asks[i%len(asks)].text)
		return v, err
	}
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return p, err
	}
	defer conn.Release()
	if err := conn.QueryRow(ctx, `SELECT current_setting('hnsw.ef_search'), current_setting('hnsw.iterative_scan')`).Scan(&p.EfSearch, &p.IterativeScan); err != nil {
		return p, err
	}
	explain := func(sql string, v pgvector.Vector) (string, error) {
		// The simple protocol puts the values in the text as literals.
		rows, err := conn.Query(ctx, sql, pgx.QueryExecModeSimpleProtocol, scope.TenantID, v.String(), mnemosRecallRows)
		if err != nil {
			return "", err
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		return mnemosVectorLiteral.ReplaceAllString(strings.Join(lines, "\n"), "'[…]'"), err
	}
	v, err := vec(0)
	if err != nil {
		return p, err
	}
	if p.CustomPlan, err = explain(`EXPLAIN (ANALYZE, BUFFERS) `+q, v); err != nil {
		return p, err
	}
	const name = "bench_mnemos_recall"
	if _, err := conn.Exec(ctx, `PREPARE `+name+` AS `+q); err != nil {
		return p, err
	}
	defer conn.Exec(context.WithoutCancel(ctx), `DEALLOCATE `+name) //nolint:errcheck
	for i := range 6 {
		v, err := vec(i + 1)
		if err != nil {
			return p, err
		}
		if _, err := conn.Exec(ctx, `EXECUTE `+name+`($1, $2, $3)`, pgx.QueryExecModeSimpleProtocol, scope.TenantID, v.String(), mnemosRecallRows); err != nil {
			return p, err
		}
	}
	if v, err = vec(7); err != nil {
		return p, err
	}
	if p.PreparedPlan, err = explain(`EXPLAIN (ANALYZE, BUFFERS) EXECUTE `+name+`($1, $2, $3)`, v); err != nil {
		return p, err
	}
	uses := func(plan string) bool { return strings.Contains(plan, "using "+p.Index+" ") }
	p.CustomUses, p.PreparedUses = uses(p.CustomPlan), uses(p.PreparedPlan)
	p.PreparedGenre = "custom"
	if strings.Contains(p.PreparedPlan, "$1") || strings.Contains(p.PreparedPlan, "$2") {
		p.PreparedGenre = "generic"
	}
	return p, nil
}

// mnemosAccuracy compares the L1 query's index scan with an exact scan
// (index scans switched off: HNSW has no bitmap scan, so the planner reads
// the tenant's rows by experiences_by_level or sequentially) on asks: the mean share of the exact k nearest
// rows the index returned among its first k, for k 12 (the rows recall
// reads) and 3 (the examples it shows). The synthetic questions have many
// ties, so a row as near as the exact k-th counts as found.
func mnemosAccuracy(ctx context.Context, db *database, space *mnemos.Space, scope yakor.Scope, asks []mnemosAsk) ([]mnemosAccuracyRow, error) {
	spaceID, dims, err := space.ID(ctx)
	if err != nil {
		return nil, err
	}
	q := mnemosRecallSQL(spaceID, dims, mnemos.L1)
	sims := func(db interface {
		Query(context.Context, string, ...any) (pgx.Rows, error)
	}, v pgvector.Vector) ([]float64, error) {
		rows, err := db.Query(ctx, q, scope.TenantID, v, mnemosRecallRows)
		if err != nil {
			return nil, err
		}
		var out []float64
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				rows.Close()
				return nil, err
			}
			out = append(out, vals[7].(float64))
		}
		slices.Sort(out)
		slices.Reverse(out)
		return out, rows.Err()
	}
	found := func(exact, approx []float64, k int) float64 {
		k = min(k, len(exact))
		hit := 0
		for _, s := range approx[:min(k, len(approx))] {
			if s >= exact[k-1]-1e-6 {
				hit++
			}
		}
		return float64(hit) / float64(k)
	}
	rows := []mnemosAccuracyRow{{Kind: "all"}}
	for _, k := range mnemosKinds {
		rows = append(rows, mnemosAccuracyRow{Kind: k})
	}
	for _, a := range asks {
		_, v, err := space.EmbedOne(ctx, a.text)
		if err != nil {
			return nil, err
		}
		t := time.Now()
		approx, err := sims(db.pool, v)
		if err != nil {
			return nil, err
		}
		approxMS := float64(time.Since(t).Microseconds()) / 1000
		var exact []float64
		var exactMS float64
		err = pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SET LOCAL enable_indexscan = off`); err != nil {
				return err
			}
			t := time.Now()
			exact, err = sims(tx, v)
			exactMS = float64(time.Since(t).Microseconds()) / 1000
			return err
		})
		if err != nil {
			return nil, err
		}
		if len(exact) == 0 {
			continue
		}
		for i := range rows {
			if i == 0 || rows[i].Kind == a.kind {
				rows[i].N++
				rows[i].Top12 += found(exact, approx, mnemosRecallRows)
				rows[i].Top3 += found(exact, approx, 3)
				rows[i].indexMS = append(rows[i].indexMS, approxMS)
				rows[i].exactMS = append(rows[i].exactMS, exactMS)
			}
		}
	}
	out := rows[:0]
	for _, r := range rows {
		if r.N > 0 {
			r.Top12, r.Top3 = r.Top12/float64(r.N), r.Top3/float64(r.N)
			slices.Sort(r.indexMS)
			slices.Sort(r.exactMS)
			r.IndexP50, r.ExactP50 = pct(r.indexMS, 50), pct(r.exactMS, 50)
			out = append(out, r)
		}
	}
	return out, nil
}

// mnemosAccuracyRow is the index's accuracy on one kind of question.
type mnemosAccuracyRow struct {
	Kind  string  `json:"kind"`
	N     int     `json:"n"`
	Top12 float64 `json:"top12"` // share of the exact 12 nearest found
	Top3  float64 `json:"top3"`  // share of the exact 3 nearest found
	// IndexP50 and ExactP50 are the L1 query's time by the planner's plan
	// and with index scans off (a bitmap or sequential scan, then a sort).
	IndexP50         float64 `json:"planned_p50_ms"`
	ExactP50         float64 `json:"exact_p50_ms"`
	indexMS, exactMS []float64
}

// benchMnemosTurns runs turns on a fresh thread of the measured tenant
// through two engines, one without long-term memory and one with it,
// alternating, and reads each turn's timings from its trace.
func benchMnemosTurns(ctx context.Context, db *database, cfg Config, log *slog.Logger, store *mnemos.Store, scope yakor.Scope, gen *mnemosGen, sample []mnemosQ, n, turns int) (off, on mnemosTurnStats, err error) {
	hist := history.NewStore(db.pool)
	th, err := hist.CreateThread(ctx, scope, history.ThreadCreate{Title: fmt.Sprintf("bench mnemos %d", n)})
	if err != nil {
		return off, on, err
	}
	scope = scope.WithThread(th.ID)
	rng := rand.New(rand.NewPCG(uint64(n), 17))
	for done := 0; done < n; done += 10_000 {
		msgs := make([]history.NewMessage, min(10_000, n-done))
		for i := range msgs {
			role := history.RoleUser
			if (done+i)%2 == 1 {
				role = history.RoleAssistant
			}
			msgs[i] = history.NewMessage{Role: role, Content: benchText(rng)}
		}
		if _, err := hist.Import(ctx, scope, msgs); err != nil {
			return off, on, err
		}
	}
	if _, err := db.pool.Exec(ctx, `ANALYZE messages`); err != nil {
		return off, on, err
	}
	tc := turn.Config{WindowChars: cfg.WindowChars, AnchorMode: turn.AnchorOff}
	engines := [2]*turn.Engine{
		turn.NewEngine(db.pool, llm.NewOffline(), tc, log, nil),
		turn.NewEngine(db.pool, llm.NewOffline(), tc, log, nil).WithMemory(store, cfg.MemoryBudget),
	}
	type samples struct {
		mem, noSearch, rec, tot []float64
		prompt                  []int
		memChars                int
		searches                int
	}
	var got [2]samples
	warm := min(10, turns)
	for i := range warm + turns {
		order := [2]int{0, 1}
		if i%2 == 1 {
			order = [2]int{1, 0}
		}
		for _, k := range order {
			a := gen.ask(rng, sample, rng.IntN(3))
			out, err := engines[k].Send(ctx, scope, turn.Input{Content: a.text}, func(turn.Event) error { return nil })
			if err != nil {
				return off, on, err
			}
			if i < warm {
				continue
			}
			tr, err := engines[k].FindTrace(ctx, scope, out.TurnID)
			if err != nil {
				return off, on, err
			}
			s := &got[k]
			s.mem = append(s.mem, tr.Timings["memory"])
			searched := 0.0
			for _, st := range tr.Searches {
				searched += st.TookMS
			}
			s.noSearch = append(s.noSearch, tr.Timings["memory"]-searched)
			s.rec = append(s.rec, tr.Timings["memory_recall"])
			s.tot = append(s.tot, tr.Timings["total"])
			s.prompt = append(s.prompt, tr.PromptChars)
			s.searches += len(tr.Searches)
			for _, l := range tr.Layers {
				if l.Name == turn.LayerMemory {
					s.memChars += l.Chars
				}
			}
			if tr.MemoryError != "" {
				return off, on, fmt.Errorf("bench mnemos: turn %s left memory out: %s", tr.ID, tr.MemoryError)
			}
		}
	}
	var stats [2]mnemosTurnStats
	for k := range got {
		s := got[k]
		slices.Sort(s.mem)
		slices.Sort(s.noSearch)
		slices.Sort(s.rec)
		slices.Sort(s.tot)
		slices.Sort(s.prompt)
		stats[k] = mnemosTurnStats{
			N: len(s.mem), MemoryP50: pct(s.mem, 50), MemoryP99: pct(s.mem, 99), NoSearchP50: pct(s.noSearch, 50), NoSearchP99: pct(s.noSearch, 99), RecallP50: pct(s.rec, 50), RecallP99: pct(s.rec, 99),
			TotalP50: pct(s.tot, 50), PromptCharsP50: s.prompt[len(s.prompt)/2], MemoryChars: float64(s.memChars) / float64(len(s.mem)), Searches: s.searches,
		}
	}
	return stats[0], stats[1], nil
}

// The synthetic experiences: questions of six themes (prices, VAT,
// delivery, rent, travel, code) in English and Russian, each made from a
// template and slot values, so that a paraphrase (another template, the
// same slots) asks the same thing in other words.

type mnemosQ struct {
	topic, tmpl int
	ru          bool
	slots       []any
}

// mnemosAsk is a question recall is measured on.
type mnemosAsk struct {
	kind, text, lang string
}

var mnemosKinds = []string{"paraphrase of a stored question", "new question, stored themes", "unrelated question"}

type mnemosLang struct {
	slots     func(r *rand.Rand) []any
	questions []string
	answers   []string
	wrong     []string // wrong answers (L3)
	reasons   []string // why they were wrong
	themes    []string // L2 themes
	titles    []string // L2 titles: %[1]v the theme
}

type mnemosTopic [2]mnemosLang // English, Russian

type mnemosGen struct{ topics []mnemosTopic }

func pickOf[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

type mnemosCity struct{ en, ru, ruIn, ruTo, ruFrom string }

var (
	mnemosCities = []mnemosCity{
		{"Moscow", "Москва", "в Москве", "в Москву", "из Москвы"}, {"Kazan", "Казань", "в Казани", "в Казань", "из Казани"},
		{"Novosibirsk", "Новосибирск", "в Новосибирске", "в Новосибирск", "из Новосибирска"}, {"Yekaterinburg", "Екатеринбург", "в Екатеринбурге", "в Екатеринбург", "из Екатеринбурга"},
		{"Samara", "Самара", "в Самаре", "в Самару", "из Самары"}, {"Saint Petersburg", "Санкт-Петербург", "в Санкт-Петербурге", "в Санкт-Петербург", "из Санкт-Петербурга"},
		{"Minsk", "Минск", "в Минске", "в Минск", "из Минска"}, {"Almaty", "Алматы", "в Алматы", "в Алматы", "из Алматы"},
		{"Tbilisi", "Тбилиси", "в Тбилиси", "в Тбилиси", "из Тбилиси"}, {"Yerevan", "Ереван", "в Ереване", "в Ереван", "из Еревана"},
		{"Berlin", "Берлин", "в Берлине", "в Берлин", "из Берлина"}, {"Warsaw", "Варшава", "в Варшаве", "в Варшаву", "из Варшавы"},
		{"Riga", "Рига", "в Риге", "в Ригу", "из Риги"}, {"Istanbul", "Стамбул", "в Стамбуле", "в Стамбул", "из Стамбула"},
		{"Dubai", "Дубай", "в Дубае", "в Дубай", "из Дубая"}, {"Prague", "Прага", "в Праге", "в Прагу", "из Праги"},
		{"Lisbon", "Лиссабон", "в Лиссабоне", "в Лиссабон", "из Лиссабона"}, {"Vienna", "Вена", "в Вене", "в Вену", "из Вены"},
		{"Nizhny Novgorod", "Нижний Новгород", "в Нижнем Новгороде", "в Нижний Новгород", "из Нижнего Новгорода"}, {"Krasnodar", "Краснодар", "в Краснодаре", "в Краснодар", "из Краснодара"},
	}
	mnemosItemsEN = []string{"birch plywood 18 mm", "MDF board 16 mm", "laminated chipboard", "oak parquet", "steel pipe 40 mm", "copper cable 3x2.5",
		"ceramic floor tiles", "gypsum board", "pine beams 100x100", "roofing sheets", "LED panels", "cement M500", "mineral wool", "PVC windows",
		"aluminium profile", "OSB-3 12 mm", "porcelain stoneware", "facade bricks", "reinforcing bar A500", "kitchen worktops"}
	mnemosItemsRU = []string{"фанера берёзовая 18 мм", "ЛДСП 16 мм", "МДФ плита", "дубовый паркет", "труба стальная 40 мм", "кабель ВВГ 3х2,5",
		"напольная плитка", "гипсокартон", "брус сосновый 100х100", "профнастил", "светодиодные панели", "цемент М500", "минвата", "пластиковые окна",
		"алюминиевый профиль", "OSB-3 12 мм", "керамогранит", "облицовочный кирпич", "арматура А500", "столешницы"}
	mnemosUnitsEN = [][2]string{{"sheet", "sheets"}, {"square metre", "square metres"}, {"tonne", "tonnes"}, {"metre", "metres"}, {"piece", "pieces"}, {"pallet", "pallets"}}
	mnemosUnitsRU = [][2]string{{"за лист", "листов"}, {"за м²", "м²"}, {"за тонну", "тонн"}, {"за метр", "метров"}, {"за штуку", "штук"}, {"за поддон", "поддонов"}}
	mnemosCurEN   = []string{"roubles", "USD", "EUR", "tenge", "lari"}
	mnemosCurRU   = []string{"руб.", "долл.", "евро", "тенге", "лари"}
	mnemosMonthEN = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	mnemosMonthRU = []string{"в январе", "в феврале", "в марте", "в апреле", "в мае", "в июне", "в июле", "в августе", "в сентябре", "в октябре", "в ноябре", "в декабре"}
	mnemosLangs   = []string{"Go", "Python", "TypeScript", "Rust", "Java", "Kotlin", "C#", "PHP"}
	mnemosLibs    = []string{"the standard library", "pgx", "requests", "axios", "tokio", "Spring", "FastAPI", "Laravel", "sqlx", "Ktor"}
	mnemosErrors  = []string{"context deadline exceeded", "connection refused", "unexpected EOF", "permission denied", "out of memory", "invalid UTF-8", "too many open files", "deadlock detected"}
	mnemosDoEN    = []string{"parse JSON", "retry HTTP requests", "read a large CSV file", "connect to PostgreSQL", "stream a file upload", "cancel a long query",
		"hash passwords", "sort records by date", "format dates in UTC", "paginate query results", "upload files to S3", "test an HTTP handler", "limit concurrent workers", "read environment variables"}
	mnemosDoRU = []string{"распарсить JSON", "повторять HTTP-запросы", "прочитать большой CSV", "подключиться к PostgreSQL", "стримить загрузку файла", "отменить долгий запрос",
		"хешировать пароли", "отсортировать записи по дате", "форматировать даты в UTC", "сделать пагинацию", "загрузить файлы в S3", "протестировать HTTP-обработчик", "ограничить число воркеров", "читать переменные окружения"}
	mnemosPrefixEN = []string{"", "", "", "Hi, ", "Quick question: ", "Hello! ", "Please tell me: ", "Sorry to bother you, ", "One more thing: "}
	mnemosSuffixEN = []string{"", "", "", " Thanks!", " It's urgent.", " We need it for a client.", " Asking for a project next month.", " Thank you in advance."}
	mnemosPrefixRU = []string{"", "", "", "Здравствуйте! ", "Подскажите, ", "Вопрос: ", "Добрый день. ", "Ещё вопрос: "}
	mnemosSuffixRU = []string{"", "", "", " Спасибо!", " Срочно.", " Это для клиента.", " Нужно к следующей неделе.", " Заранее спасибо."}
)

func newMnemosGen() *mnemosGen {
	num := func(r *rand.Rand, lo, hi int) int { return lo + r.IntN(hi-lo+1) }
	prices := mnemosTopic{
		{
			slots: func(r *rand.Rand) []any {
				u := pickOf(r, mnemosUnitsEN)
				return []any{pickOf(r, mnemosItemsEN), u[0], "in " + pickOf(r, mnemosCities).en, num(r, 2, 500), u[1], num(r, 50, 20000), pickOf(r, mnemosCurEN)}
			},
			questions: []string{
				"How much does %[1]v cost per %[2]v %[3]v?",
				"What is the current price of %[1]v %[3]v if we buy %[4]v %[5]v?",
				"Price check: %[4]v %[5]v of %[1]v %[3]v, what will it cost?",
				"Can you quote %[1]v for %[4]v %[5]v %[3]v, with any bulk discount?",
			},
			answers: []string{
				"%[1]v costs about %[6]v %[7]v per %[2]v %[3]v. For %[4]v %[5]v most suppliers give 3–7%% off; prices change weekly, so check the current list before you order.",
				"Expect %[6]v %[7]v per %[2]v for %[1]v %[3]v; an order of %[4]v %[5]v usually gets the wholesale price. Delivery and cutting are charged separately.",
			},
			wrong:   []string{"%[1]v is %[6]v %[7]v per pallet whatever the quantity.", "Prices for %[1]v %[3]v are fixed by law, so no discount is possible."},
			reasons: []string{"The price was per pallet, not per %[2]v, and the bulk discount for %[4]v %[5]v was ignored.", "There is no fixed price for %[1]v; the answer invented a rule."},
			themes:  []string{"Building material prices", "Wholesale discounts", "Sheet material price trends"},
			titles:  []string{"%[1]v: what changed this quarter", "%[1]v — a buyer's guide", "How suppliers set prices: %[1]v"},
		},
		{
			slots: func(r *rand.Rand) []any {
				u := pickOf(r, mnemosUnitsRU)
				return []any{pickOf(r, mnemosItemsRU), u[0], pickOf(r, mnemosCities).ruIn, num(r, 2, 500), u[1], num(r, 50, 20000), pickOf(r, mnemosCurRU)}
			},
			questions: []string{
				"Сколько стоит %[1]v %[2]v %[3]v?",
				"Какая сейчас цена: %[1]v %[3]v, если брать %[4]v %[5]v?",
				"Посчитайте %[4]v %[5]v, %[1]v %[3]v — сколько выйдет?",
				"Дайте цену на %[1]v, объём %[4]v %[5]v, %[3]v, со скидкой за опт.",
			},
			answers: []string{
				"%[1]v %[3]v стоит около %[6]v %[7]v %[2]v. При заказе от %[4]v %[5]v обычно дают скидку 3–7%%; цены меняются еженедельно, уточняйте актуальный прайс.",
				"Ориентир — %[6]v %[7]v %[2]v (%[1]v, %[3]v). На %[4]v %[5]v действует оптовая цена, доставка и распил считаются отдельно.",
			},
			wrong:   []string{"%[1]v стоит %[6]v %[7]v за поддон при любом объёме.", "Цены на %[1]v %[3]v фиксированы, скидок не бывает."},
			reasons: []string{"Цена указана за поддон, а не %[2]v, и не учтена оптовая скидка.", "Фиксированной цены на %[1]v нет, ответ выдумал правило."},
			themes:  []string{"Цены на стройматериалы", "Оптовые скидки", "Динамика цен на листовые материалы"},
			titles:  []string{"%[1]v: что изменилось за квартал", "%[1]v — памятка покупателю", "Как поставщики считают цену: %[1]v"},
		},
	}
	vat := mnemosTopic{
		{
			slots: func(r *rand.Rand) []any {
				rate := pickOf(r, []int{20, 10, 0, 12, 18, 7, 19})
				amount := num(r, 1000, 500000)
				return []any{pickOf(r, mnemosItemsEN), rate, pickOf(r, []string{"company", "sole trader", "private buyer", "non-resident", "small business"}),
					pickOf(r, []string{"Germany", "China", "Turkey", "Kazakhstan", "Belarus", "Italy", "Poland", "Uzbekistan"}), amount, amount * rate / (100 + rate), pickOf(r, mnemosCurEN)}
			},
			questions: []string{
				"Is %[2]v%% VAT included in the price of %[1]v for a %[3]v?",
				"Does a %[3]v pay %[2]v%% VAT on %[1]v imported from %[4]v?",
				"How can a %[3]v reclaim the VAT on an invoice of %[5]v %[7]v for %[1]v?",
				"Our supplier from %[4]v charged %[2]v%% VAT on %[1]v; is that right for a %[3]v?",
			},
			answers: []string{
				"For a %[3]v, %[1]v from %[4]v is taxed at %[2]v%%. An invoice of %[5]v %[7]v includes %[6]v %[7]v of VAT, which can be reclaimed with a proper VAT invoice and the customs declaration.",
				"Yes: %[2]v%% VAT applies to %[1]v bought by a %[3]v. Of %[5]v %[7]v, %[6]v %[7]v is VAT; keep the invoice to deduct it in the quarterly return.",
			},
			wrong:   []string{"VAT never applies to %[1]v imported from %[4]v.", "A %[3]v can always reclaim twice the VAT paid."},
			reasons: []string{"Imports are taxed at %[2]v%% at the border; the answer told a %[3]v not to pay it.", "Only the VAT actually paid, %[6]v %[7]v, can be deducted."},
			themes:  []string{"VAT on imports", "VAT deductions for small business", "VAT rates by country"},
			titles:  []string{"%[1]v: the rules in brief", "%[1]v explained with examples", "Common mistakes: %[1]v"},
		},
		{
			slots: func(r *rand.Rand) []any {
				rate := pickOf(r, []int{20, 10, 0, 12, 18, 7, 19})
				amount := num(r, 1000, 500000)
				return []any{pickOf(r, mnemosItemsRU), rate, pickOf(r, []string{"юрлицо", "ИП", "физлицо", "нерезидент", "малый бизнес"}),
					pickOf(r, []string{"из Германии", "из Китая", "из Турции", "из Казахстана", "из Беларуси", "из Италии", "из Польши", "из Узбекистана"}), amount, amount * rate / (100 + rate), pickOf(r, mnemosCurRU)}
			},
			questions: []string{
				"Входит ли НДС %[2]v%% в цену на позицию «%[1]v», если покупатель %[3]v?",
				"Платит ли %[3]v НДС %[2]v%% за «%[1]v», ввезённые %[4]v?",
				"Как %[3]v вернуть НДС по счёту на %[5]v %[7]v за «%[1]v»?",
				"Поставщик %[4]v начислил НДС %[2]v%% на «%[1]v» — это правильно, если мы %[3]v?",
			},
			answers: []string{
				"Для покупателя (%[3]v) ставка НДС на «%[1]v» %[4]v — %[2]v%%. В счёте на %[5]v %[7]v НДС составляет %[6]v %[7]v; его можно принять к вычету при наличии счёта-фактуры.",
				"Да, НДС %[2]v%% применяется. Из %[5]v %[7]v налог — %[6]v %[7]v; сохраните счёт-фактуру и таможенную декларацию для вычета.",
			},
			wrong:   []string{"На «%[1]v» %[4]v НДС не начисляется никогда.", "%[3]v может вернуть двойную сумму НДС."},
			reasons: []string{"Импорт облагается НДС %[2]v%% на границе, а ответ советовал не платить.", "К вычету принимается только уплаченный НДС, %[6]v %[7]v."},
			themes:  []string{"НДС при импорте", "Вычеты НДС для малого бизнеса", "Ставки НДС по странам"},
			titles:  []string{"%[1]v: правила кратко", "%[1]v на примерах", "Типичные ошибки: %[1]v"},
		},
	}
	delivery := mnemosTopic{
		{
			slots: func(r *rand.Rand) []any {
				u := pickOf(r, mnemosUnitsEN)
				return []any{pickOf(r, mnemosItemsEN), pickOf(r, mnemosCities).en, num(r, 1, 14), num(r, 2, 500), u[1], num(r, 1000, 90000), pickOf(r, mnemosCurEN)}
			},
			questions: []string{
				"How long does delivery of %[4]v %[5]v of %[1]v to %[2]v take?",
				"Can you deliver %[1]v to %[2]v within %[3]v days?",
				"What does shipping %[4]v %[5]v of %[1]v to %[2]v cost?",
				"Is express delivery of %[1]v to %[2]v possible this week?",
			},
			answers: []string{
				"Delivery of %[1]v to %[2]v takes %[3]v working days; %[4]v %[5]v fit on one truck for about %[6]v %[7]v. Express in 1–2 days costs roughly double.",
				"To %[2]v we ship %[1]v in %[3]v days by road; for %[4]v %[5]v the freight is about %[6]v %[7]v, unloading not included.",
			},
			wrong:   []string{"Delivery of %[1]v to %[2]v is always free and next-day.", "We do not deliver to %[2]v at all."},
			reasons: []string{"Delivery to %[2]v takes %[3]v days and costs about %[6]v %[7]v.", "The carrier serves %[2]v; the answer refused a possible order."},
			themes:  []string{"Delivery times to the regions", "Freight costs by truck", "Express delivery options"},
			titles:  []string{"%[1]v: the carriers compared", "%[1]v — what affects the price", "%[1]v in practice"},
		},
		{
			slots: func(r *rand.Rand) []any {
				u := pickOf(r, mnemosUnitsRU)
				return []any{pickOf(r, mnemosItemsRU), pickOf(r, mnemosCities).ruTo, num(r, 1, 14), num(r, 2, 500), u[1], num(r, 1000, 90000), pickOf(r, mnemosCurRU)}
			},
			questions: []string{
				"Сколько идёт доставка %[4]v %[5]v (%[1]v) %[2]v?",
				"Сможете привезти %[1]v %[2]v за %[3]v дней?",
				"Сколько стоит доставка %[4]v %[5]v, %[1]v, %[2]v?",
				"Возможна ли срочная доставка: %[1]v %[2]v на этой неделе?",
			},
			answers: []string{
				"Доставка %[2]v занимает %[3]v рабочих дней; %[4]v %[5]v (%[1]v) помещаются в одну машину, это около %[6]v %[7]v. Срочная за 1–2 дня — примерно вдвое дороже.",
				"Везём %[1]v %[2]v автотранспортом за %[3]v дней; за %[4]v %[5]v фрахт около %[6]v %[7]v без разгрузки.",
			},
			wrong:   []string{"Доставка %[2]v всегда бесплатная и на следующий день.", "%[2]v мы не возим."},
			reasons: []string{"Доставка %[2]v занимает %[3]v дней и стоит около %[6]v %[7]v.", "Перевозчик возит %[1]v %[2]v, ответ зря отказал."},
			themes:  []string{"Сроки доставки в регионы", "Стоимость фуры", "Срочная доставка"},
			titles:  []string{"%[1]v: сравнение перевозчиков", "%[1]v — от чего зависит цена", "%[1]v на практике"},
		},
	}
	rent := mnemosTopic{
		{
			slots: func(r *rand.Rand) []any {
				return []any{num(r, 20, 400), pickOf(r, []string{"flat", "office", "warehouse", "shop", "studio", "garage"}),
					pickOf(r, []string{"centre", "north", "riverside", "old town", "business district", "suburbs"}), "in " + pickOf(r, mnemosCities).en,
					num(r, 200, 9000) * 10, num(r, 3, 36), pickOf(r, mnemosCurEN)}
			},
			questions: []string{
				"What is the monthly rent for a %[1]v m² %[2]v %[4]v, %[3]v?",
				"Is %[5]v %[7]v a month a fair rent for a %[1]v m² %[2]v %[4]v?",
				"Can I break a %[6]v-month lease on a %[2]v %[4]v early?",
				"Who pays the utilities when renting a %[2]v in the %[3]v %[4]v?",
			},
			answers: []string{
				"A %[1]v m² %[2]v in the %[3]v %[4]v rents for about %[5]v %[7]v a month. Leases of %[6]v months usually allow early termination with two months' notice; utilities are normally paid by the tenant.",
				"Around %[5]v %[7]v a month is typical for a %[2]v of %[1]v m² %[4]v (%[3]v). Check the notice period in the %[6]v-month lease and who pays for heating.",
			},
			wrong:   []string{"Rent %[4]v is regulated at a fixed rate per m².", "A %[6]v-month lease can never be ended early."},
			reasons: []string{"Rents are set by the market; about %[5]v %[7]v a month is typical.", "Most %[6]v-month leases allow early termination with notice."},
			themes:  []string{"Commercial rent", "Residential leases", "Rent rates by district"},
			titles:  []string{"%[1]v: a tenant's checklist", "%[1]v — market overview", "What to check before signing: %[1]v"},
		},
		{
			slots: func(r *rand.Rand) []any {
				return []any{num(r, 20, 400), pickOf(r, []string{"квартира", "офис", "склад", "магазин", "студия", "гараж"}),
					pickOf(r, []string{"центр", "север", "набережная", "старый город", "деловой район", "пригород"}), pickOf(r, mnemosCities).ruIn,
					num(r, 200, 9000) * 10, num(r, 3, 36), pickOf(r, mnemosCurRU)}
			},
			questions: []string{
				"Сколько стоит аренда: %[2]v %[1]v м² %[4]v, район %[3]v?",
				"Нормальная ли цена %[5]v %[7]v в месяц: %[2]v %[1]v м² %[4]v?",
				"Можно ли досрочно расторгнуть договор аренды на %[6]v мес. (%[2]v %[4]v)?",
				"Кто платит коммуналку, если снимать — %[2]v, район %[3]v, %[4]v?",
			},
			answers: []string{
				"%[2]v %[1]v м² %[4]v (%[3]v) сдаётся примерно за %[5]v %[7]v в месяц. Договор на %[6]v мес. обычно можно расторгнуть, предупредив за два месяца; коммунальные платежи, как правило, на арендаторе.",
				"Около %[5]v %[7]v в месяц — рыночная цена (%[2]v, %[1]v м², %[4]v). Проверьте срок уведомления в договоре на %[6]v мес. и кто платит за отопление.",
			},
			wrong:   []string{"Аренда %[4]v регулируется государством по фиксированной ставке.", "Договор на %[6]v мес. нельзя расторгнуть досрочно."},
			reasons: []string{"Ставки рыночные, около %[5]v %[7]v в месяц.", "Большинство договоров на %[6]v мес. допускают расторжение с уведомлением."},
			themes:  []string{"Коммерческая аренда", "Аренда жилья", "Ставки аренды по районам"},
			titles:  []string{"%[1]v: чек-лист арендатора", "%[1]v — обзор рынка", "Что проверить до подписания: %[1]v"},
		},
	}
	travel := mnemosTopic{
		{
			slots: func(r *rand.Rand) []any {
				a, b := pickOf(r, mnemosCities), pickOf(r, mnemosCities)
				return []any{a.en, b.en, pickOf(r, mnemosMonthEN), pickOf(r, []string{"train", "flight", "bus", "ferry", "car"}), num(r, 30, 900) * 10, num(r, 2, 14), pickOf(r, mnemosCurEN)}
			},
			questions: []string{
				"What is the cheapest way to get from %[1]v to %[2]v in %[3]v?",
				"Should I take the %[4]v from %[1]v to %[2]v in %[3]v?",
				"How many days do I need for a trip from %[1]v to %[2]v by %[4]v?",
				"Do I need a visa to travel from %[1]v to %[2]v in %[3]v?",
			},
			answers: []string{
				"In %[3]v the %[4]v from %[1]v to %[2]v is usually cheapest, about %[5]v %[7]v one way; plan %[6]v days for the trip with a day to rest.",
				"Taking the %[4]v from %[1]v to %[2]v costs around %[5]v %[7]v in %[3]v; book two weeks ahead and allow %[6]v days in total.",
			},
			wrong:   []string{"There is no way to get from %[1]v to %[2]v in %[3]v.", "The %[4]v from %[1]v to %[2]v is always free for tourists."},
			reasons: []string{"Several connections run in %[3]v; the %[4]v costs about %[5]v %[7]v.", "Tickets cost about %[5]v %[7]v; nothing is free."},
			themes:  []string{"Train or plane", "Travel budgets", "Visa rules for short trips"},
			titles:  []string{"%[1]v: a season-by-season guide", "%[1]v — saving on tickets", "%[1]v for business travellers"},
		},
		{
			slots: func(r *rand.Rand) []any {
				a, b := pickOf(r, mnemosCities), pickOf(r, mnemosCities)
				return []any{a.ruFrom, b.ruTo, pickOf(r, mnemosMonthRU), pickOf(r, []string{"поезде", "самолёте", "автобусе", "пароме", "машине"}), num(r, 30, 900) * 10, num(r, 2, 14), pickOf(r, mnemosCurRU)}
			},
			questions: []string{
				"Как дешевле всего добраться %[1]v %[2]v %[3]v?",
				"Стоит ли ехать %[1]v %[2]v на %[4]v %[3]v?",
				"Сколько дней заложить на поездку %[1]v %[2]v на %[4]v?",
				"Нужна ли виза, чтобы поехать %[1]v %[2]v %[3]v?",
			},
			answers: []string{
				"%[3]v дешевле всего ехать %[1]v %[2]v на %[4]v — около %[5]v %[7]v в одну сторону; на поездку заложите %[6]v дн. с днём на отдых.",
				"На %[4]v %[1]v %[2]v %[3]v выйдет около %[5]v %[7]v; берите билеты за две недели и закладывайте %[6]v дн.",
			},
			wrong:   []string{"%[3]v %[1]v %[2]v добраться невозможно.", "На %[4]v туристы ездят бесплатно."},
			reasons: []string{"Рейсы есть, на %[4]v около %[5]v %[7]v.", "Билеты стоят около %[5]v %[7]v."},
			themes:  []string{"Поезд или самолёт", "Бюджет поездки", "Визы для коротких поездок"},
			titles:  []string{"%[1]v: гид по сезонам", "%[1]v — как сэкономить на билетах", "%[1]v для командировок"},
		},
	}
	code := mnemosTopic{
		{
			slots: func(r *rand.Rand) []any {
				return []any{pickOf(r, mnemosDoEN), pickOf(r, mnemosLangs), pickOf(r, mnemosLibs), pickOf(r, mnemosErrors)}
			},
			questions: []string{
				"How do I %[1]v in %[2]v with %[3]v?",
				"What is the idiomatic way to %[1]v in %[2]v?",
				"Why does my %[2]v code fail with %[4]v when I %[1]v using %[3]v?",
				"Show me a minimal %[2]v example to %[1]v.",
			},
			answers: []string{
				"In %[2]v, use %[3]v to %[1]v: create the client once, pass a context with a timeout, and check every error. If you see %[4]v, the usual cause is a closed connection or a missing timeout.",
				"The idiomatic %[2]v way to %[1]v is with %[3]v; keep it in one small function, close what you open with defer or try-with-resources, and log %[4]v with the request id.",
			},
			wrong:   []string{"You cannot %[1]v in %[2]v; switch languages.", "Ignore %[4]v; it is harmless."},
			reasons: []string{"%[3]v does it in a few lines.", "%[4]v means the operation failed and must be handled."},
			themes:  []string{"HTTP clients and retries", "Database access patterns", "Error handling"},
			titles:  []string{"%[1]v in practice", "%[1]v: pitfalls", "A checklist: %[1]v"},
		},
		{
			slots: func(r *rand.Rand) []any {
				return []any{pickOf(r, mnemosDoRU), pickOf(r, mnemosLangs), pickOf(r, mnemosLibs), pickOf(r, mnemosErrors)}
			},
			questions: []string{
				"Как %[1]v на %[2]v через %[3]v?",
				"Как правильно %[1]v на %[2]v?",
				"Почему код на %[2]v падает с ошибкой %[4]v, когда я пытаюсь %[1]v через %[3]v?",
				"Покажите минимальный пример на %[2]v: %[1]v.",
			},
			answers: []string{
				"На %[2]v для этого есть %[3]v: создайте клиент один раз, передавайте контекст с таймаутом и проверяйте каждую ошибку. Ошибка %[4]v обычно означает закрытое соединение или отсутствие таймаута.",
				"Идиоматичный способ на %[2]v — %[3]v; вынесите это в маленькую функцию, закрывайте ресурсы и логируйте %[4]v с идентификатором запроса.",
			},
			wrong:   []string{"На %[2]v это сделать нельзя, смените язык.", "Ошибку %[4]v можно игнорировать."},
			reasons: []string{"%[3]v делает это в несколько строк.", "%[4]v значит, что операция не удалась."},
			themes:  []string{"HTTP-клиенты и повторы", "Работа с базой данных", "Обработка ошибок"},
			titles:  []string{"%[1]v на практике", "%[1]v: подводные камни", "Чек-лист: %[1]v"},
		},
	}
	return &mnemosGen{topics: []mnemosTopic{prices, vat, delivery, rent, travel, code}}
}

func (g *mnemosGen) lang(q mnemosQ) mnemosLang {
	if q.ru {
		return g.topics[q.topic][1]
	}
	return g.topics[q.topic][0]
}

// question is a new question: a third in Russian.
func (g *mnemosGen) question(r *rand.Rand) mnemosQ {
	q := mnemosQ{topic: r.IntN(len(g.topics)), ru: r.IntN(3) == 0}
	l := g.lang(q)
	q.slots, q.tmpl = l.slots(r), r.IntN(len(l.questions))
	return q
}

// text words q with its template between a random greeting and close.
func (q mnemosQ) text(r *rand.Rand) string {
	pre, suf := mnemosPrefixEN, mnemosSuffixEN
	if q.ru {
		pre, suf = mnemosPrefixRU, mnemosSuffixRU
	}
	l := mnemosThemes.lang(q)
	return pickOf(r, pre) + fmt.Sprintf(l.questions[q.tmpl], q.slots...) + pickOf(r, suf)
}

// mnemosThemes is the one set of themes; it holds no state.
var mnemosThemes = newMnemosGen()

func (g *mnemosGen) answer(r *rand.Rand, q mnemosQ) string {
	return fmt.Sprintf(pickOf(r, g.lang(q).answers), q.slots...)
}

func (g *mnemosGen) wrong(r *rand.Rand, q mnemosQ) (answer, reason string) {
	l := g.lang(q)
	i := r.IntN(len(l.wrong))
	return fmt.Sprintf(l.wrong[i], q.slots...), fmt.Sprintf(l.reasons[i], q.slots...)
}

// note is an L2 study note: a theme, an article's title and a note of
// several answers on the theme.
func (g *mnemosGen) note(r *rand.Rand) (topic, title, note string) {
	q := g.question(r)
	l := g.lang(q)
	topic = pickOf(r, l.themes)
	title = fmt.Sprintf(pickOf(r, l.titles), topic)
	var b strings.Builder
	for range 3 + r.IntN(4) {
		q.slots = l.slots(r)
		b.WriteString(g.answer(r, q))
		b.WriteByte(' ')
	}
	return topic, title, strings.TrimSpace(b.String())
}

// paraphrase asks q in other words: another template, the same slots.
func (g *mnemosGen) paraphrase(r *rand.Rand, q mnemosQ) mnemosQ {
	n := len(g.lang(q).questions)
	q.tmpl = (q.tmpl + 1 + r.IntN(n-1)) % n
	return q
}

var (
	mnemosOffEN = []string{
		"Who won the football match between %v and %v last night?",
		"Give me a recipe for %v without %v.",
		"Write a short poem about %v in the style of %v.",
		"What film should I watch tonight with %v and %v?",
		"How do I teach %v to %v?",
	}
	mnemosOffRU = []string{
		"Кто выиграл вчерашний матч %v — %v?",
		"Дай рецепт: %v без %v.",
		"Напиши короткое стихотворение про %v в стиле %v.",
		"Какой фильм посмотреть вечером с %v и %v?",
		"Как научить %v %v?",
	}
	mnemosOffWordsEN = []string{"Arsenal", "Barcelona", "pumpkin soup", "eggs", "the sea", "Pushkin", "my grandmother", "a puppy", "sit still", "autumn rain", "dumplings", "gluten", "my cat", "chess", "the kids", "a parrot"}
	mnemosOffWordsRU = []string{"Спартак", "Зенит", "тыквенный суп", "яйца", "море", "Пушкин", "бабушкой", "щенка", "сидеть спокойно", "осенний дождь", "пельмени", "глютена", "кота", "шахматы", "детьми", "попугая"}
)

// ask is the i-th kind of question recall is measured on: a paraphrase of
// a stored question, a new question on the stored themes, or an unrelated
// one.
func (g *mnemosGen) ask(r *rand.Rand, sample []mnemosQ, i int) mnemosAsk {
	kind := i % len(mnemosKinds)
	if kind == 0 && len(sample) == 0 {
		kind = 1
	}
	var q mnemosQ
	switch kind {
	case 0:
		q = g.paraphrase(r, pickOf(r, sample))
	case 1:
		q = g.question(r)
	default:
		ru := r.IntN(3) == 0
		tmpls, words, lang := mnemosOffEN, mnemosOffWordsEN, "en"
		if ru {
			tmpls, words, lang = mnemosOffRU, mnemosOffWordsRU, "ru"
		}
		return mnemosAsk{kind: mnemosKinds[2], lang: lang, text: fmt.Sprintf(pickOf(r, tmpls), pickOf(r, words), pickOf(r, words))}
	}
	lang := "en"
	if q.ru {
		lang = "ru"
	}
	return mnemosAsk{kind: mnemosKinds[kind], text: q.text(r), lang: lang}
}
