package bench

// The sections of yakor bench all: each runs one benchmark through the
// same functions as its own command and renders its part of the report.

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/search"
	"yakor/turn"
)

// allTurnResult is the turn section's result.
type allTurnResult struct {
	Load    corpusLoad    `json:"load"`
	Results []benchResult `json:"results"`
}

// allTurnLoad loads the threads of the turn section into a corpus
// database of their own (kept for the next run) through the run's
// pipeline; its measuring runs the turns on a copy of it, dropped after,
// so the corpus stays as loaded.
func allTurnLoad(ctx context.Context, e *allEnv) (allMeasure, error) {
	sizes := slices.Clone(e.scale.TurnSizes)
	name := e.db.siblingName("turn_" + joinCounts(sizes, "_"))
	load, sdb, scope, err := loadCorpus(ctx, e.db, e.log, name, e.fresh, e.pipe, e.stderr, func(ctx context.Context, sdb *database, scope yakor.Scope) ([]copyJob, error) {
		threads, err := createBenchThreads(ctx, sdb.Owner, scope, len(sizes), "bench turn")
		if err != nil {
			return nil, err
		}
		var jobs []copyJob
		for i, n := range sizes {
			jobs = append(jobs, benchTurnJobs(threads[i], n, 0)...)
		}
		// The biggest first, so that no stream is left with one at the end.
		slices.SortStableFunc(jobs, func(a, b copyJob) int { return b.count - a.count })
		return jobs, nil
	})
	if err != nil {
		return nil, err
	}
	threads, err := threadSizes(ctx, sdb, scope, sizes)
	if err != nil {
		sdb.Close()
		return nil, err
	}
	// The measuring runs once the pipeline is done with the corpus; the
	// copy needs it closed.
	return func(ctx context.Context, e *allEnv) (allPart, error) {
		sdb.Close()
		return allTurn(ctx, e, name, *load, threads)
	}, nil
}

// allTurn measures the memory layer's cost per turn at each thread size,
// on a copy of the corpus name.
func allTurn(ctx context.Context, e *allEnv, name string, load corpusLoad, threads map[int]yakor.Scope) (allPart, error) {
	sizes := slices.Sorted(maps.Keys(threads))
	runName := e.db.siblingName("turn_run")
	var rdb *database
	var err error
	if e.db.distributed() {
		// A Citus database is not copied from a template: the turns run
		// on the corpus, which goes after them.
		runName = name
		rdb, _, err = e.db.openSibling(ctx, name, false, e.log)
	} else {
		rdb, err = cloneSibling(ctx, e, name, runName)
	}
	if err != nil {
		return allPart{}, err
	}
	defer func() {
		rdb.Close()
		if err := e.db.dropSibling(context.Background(), runName); err != nil {
			e.log.Warn("drop the turn benchmark's copy", "database", runName, "err", err)
		}
	}()
	res := allTurnResult{Load: load}
	for _, n := range sizes {
		th := threads[n]
		fmt.Fprintf(e.stderr, "bench all: %d turns in a thread of %d messages…\n", e.scale.Turns, n)
		r, err := benchTurnOn(ctx, rdb, turnConfig(e.cfg, turn.AnchorAsync), e.log, th, n, e.scale.Turns, e.stderr)
		if err != nil {
			return allPart{}, err
		}
		res.Results = append(res.Results, r)
	}

	var b strings.Builder
	fmt.Fprintf(&b, "What a turn costs besides the model: the user's message stored, the window, anchors, facts and long-term memory read, the prompt assembled, the reply and the turn's trace stored and the post-turn jobs enqueued (`memory` = the trace's total minus the model's time). "+
		"The offline model answers; anchoring is async (a job after the reply, enqueued but not worked, as a separate worker fleet would take it); the engine runs as the service role under row-level security, as `yakor serve` does. The thread's tenant holds no long-term memory entries (no grading here), so recall finds its memory empty and costs the turn nothing (`yakor bench mnemos` measures a recall against 100,000 entries). "+
		"%d turns per thread size after 10 of warm-up; window %s characters.\n\n", e.scale.Turns, groupThousands(e.cfg.WindowChars))
	b.WriteString("| messages in the thread | turns | memory p50 | memory p99 | turn p50 (with the offline model) | turn p99 | prompt chars p50 |\n|---:|---:|---:|---:|---:|---:|---:|\n")
	var figs []allFigure
	for _, r := range res.Results {
		fmt.Fprintf(&b, "| %s | %d | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %s |\n", groupThousands(r.Messages), r.Turns, r.MemP50, r.MemP99, r.TotP50, r.TotP99, groupThousands(r.PromptP50))
		figs = append(figs, allFigure{Figure: fmt.Sprintf("Memory cost per turn, %s messages in the thread", groupThousands(r.Messages)),
			Value: fmt.Sprintf("p50 %.2f ms, p99 %.2f ms", r.MemP50, r.MemP99), Detail: fmt.Sprintf("%d turns, offline model, async anchoring", r.Turns)})
	}
	fmt.Fprintf(&b, "\nThe threads (%s messages of 20–400 characters) were written with COPY into a database of their own and indexed after: %s.\n", groupThousands(load.Messages), load.describe())
	return allPart{
		Figures: figs, Body: b.String(), Result: res,
		Reproduce: []string{fmt.Sprintf("bin/yakor bench turn --messages %s --anchor-modes async --turns %d", joinCounts(sizes, ","), e.scale.Turns)},
	}, nil
}

// threadSizes maps the message count of each thread of scope's tenant to
// its scope; they must be sizes.
func threadSizes(ctx context.Context, db *database, scope yakor.Scope, sizes []int) (map[int]yakor.Scope, error) {
	rows, err := db.Owner.Query(ctx, `SELECT id::text, message_count FROM threads WHERE tenant_id = $1`, scope.TenantID)
	if err != nil {
		return nil, err
	}
	out := map[int]yakor.Scope{}
	var id string
	var n int
	_, err = pgx.ForEachRow(rows, []any{&id, &n}, func() error {
		out[n] = scope.WithThread(id)
		return nil
	})
	if err == nil && len(out) != len(sizes) {
		err = fmt.Errorf("the corpus's threads hold %v messages, not %v", slices.Sorted(maps.Keys(out)), sizes)
	}
	return out, err
}

// cloneSibling makes the database to (dropped first) a file copy of the
// sibling database from, which nobody may be connected to, and opens it.
func cloneSibling(ctx context.Context, e *allEnv, from, to string) (*database, error) {
	if err := e.db.dropSibling(ctx, to); err != nil {
		return nil, err
	}
	start := time.Now()
	q := `CREATE DATABASE ` + pgx.Identifier{to}.Sanitize() + ` TEMPLATE ` + pgx.Identifier{from}.Sanitize() + ` STRATEGY FILE_COPY`
	var err error
	for try := 0; try < 10; try++ {
		// An autovacuum worker in the template makes the copy wait.
		if _, err = e.db.Owner.Exec(ctx, q); err == nil {
			break
		}
		time.Sleep(time.Second)
	}
	if err != nil {
		return nil, fmt.Errorf("copy database %s: %w", from, err)
	}
	fmt.Fprintf(e.stderr, "bench all: copied %s to %s in %.1f s\n", from, to, time.Since(start).Seconds())
	db, _, err := e.db.openSibling(ctx, to, false, e.log)
	return db, err
}

// allSearchLoad loads (or reuses) the search corpus of each database size
// through the run's pipeline, the biggest first (its words index is the
// run's longest build); its measuring measures search latency in each,
// the smallest first.
func allSearchLoad(ctx context.Context, e *allEnv) (allMeasure, error) {
	var corpora []*searchCorpus
	for _, n := range slices.Backward(slices.Sorted(slices.Values(e.scale.SearchSizes))) {
		c, err := openSearchCorpus(ctx, e.db, e.log, n, e.scale.SearchBig, e.fresh, e.pipe, e.stderr)
		if err != nil {
			for _, c := range corpora {
				c.db.Close()
			}
			return nil, err
		}
		corpora = append(corpora, c)
	}
	slices.Reverse(corpora)
	return func(ctx context.Context, e *allEnv) (allPart, error) { return allSearch(ctx, e, corpora) }, nil
}

// allSearch measures search latency in each corpus, and closes them.
func allSearch(ctx context.Context, e *allEnv, corpora []*searchCorpus) (allPart, error) {
	defer func() {
		for _, c := range corpora {
			c.db.Close()
		}
	}()
	var rs []searchResult
	for _, c := range corpora {
		r, err := c.measure(ctx, e.cfg, e.log, e.scale.Queries, e.stderr)
		if err != nil {
			return allPart{}, err
		}
		rs = append(rs, r)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "One history search (as SEARCH_HISTORY runs it: keywords found at the start of words through the index of each thread's words, weighted, and ranked by full text, %s characters of hits at most) with that many messages in the database: one big thread of %s messages and the rest in threads of %d, text from a Zipf-distributed vocabulary of 50,000 words, queries of two or three mid-frequency words and, half the time, a common one. "+
		"The messages table and its indexes are read into the server's shared buffers first (pg_prewarm; into the system's cache when they do not fit in four fifths of them), as on a server whose memory holds them; then %d queries on the big thread and %d on random small threads, after 20 of warm-up.\n\n", groupThousands(search.DefaultBudget), groupThousands(e.scale.SearchBig), benchThreadSize, e.scale.Queries, e.scale.Queries)
	b.WriteString("| messages in the database | thread | messages in the thread | p50 | p95 | p99 | max | hits per search |\n|---:|---|---:|---:|---:|---:|---:|---:|\n")
	var figs []allFigure
	for _, r := range rs {
		for _, t := range []searchThreads{r.BigThread, r.SmallThreads} {
			fmt.Fprintf(&b, "| %s | %s | %s | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.1f |\n", groupThousands(r.Messages), t.Name, groupThousands(t.Messages), t.P50, t.P95, t.P99, t.Max, t.Hits)
		}
		figs = append(figs, allFigure{Figure: fmt.Sprintf("Search latency, %s messages in the database", groupThousands(r.Messages)),
			Value:  fmt.Sprintf("p50 %.2f ms, p99 %.2f ms (thread of %s); p50 %.2f ms, p99 %.2f ms (thread of %d)", r.BigThread.P50, r.BigThread.P99, groupThousands(r.Big), r.SmallThreads.P50, r.SmallThreads.P99, r.SmallThreads.Messages),
			Detail: fmt.Sprintf("%d queries each", r.Queries)})
	}
	b.WriteString("\nLoading (COPY, one stream per core; the secondary indexes built after the rows, two at a time; then VACUUM (FREEZE, ANALYZE)). " +
		"The corpora load one after another, the biggest first, each one's index builds going on beside the next one's COPY, with at most one CPU-heavy step (a COPY stream, an index build, a vacuum, an untimed section) per core: an index's time is its build alone, while COPY and the indexes' end to end include waiting for a core.\n\n")
	b.WriteString("| messages | COPY | indexes (end to end) | of which the words index | vacuum | total | database size |\n|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rs {
		l, earlier := r.Load, ""
		if l.Reused {
			earlier = " (by an earlier run)"
		}
		fmt.Fprintf(&b, "| %s%s | %.0f s | %.0f s | %.0f s | %.0f s | %.0f s | %.1f GB |\n", groupThousands(r.Messages), earlier, l.CopySeconds, l.IndexSeconds, l.indexSeconds("words"), l.VacuumSeconds, l.TotalSeconds, float64(l.DatabaseBytes)/1e9)
	}
	if note := searchBudgetNote(e, rs); note != "" {
		b.WriteString("\n" + note + "\n")
	}
	if !e.quick && !slices.ContainsFunc(rs, func(r searchResult) bool { return r.Messages == 10_000_000 }) {
		figs = append(figs, allFigure{Figure: "Search latency, 10,000,000 messages in the database", Value: "not in this run",
			Detail: "loading 10,000,000 messages takes about 25 minutes on 2 cores, past the report's 20-minute budget; `bin/yakor bench all --search-messages 1000000,10000000` measures it, and later runs reuse the loaded corpus"})
	}
	var cmds []string
	for _, n := range e.scale.SearchSizes {
		cmds = append(cmds, fmt.Sprintf("bin/yakor bench search --messages %d --big %d --queries %d", n, e.scale.SearchBig, e.scale.Queries))
	}
	return allPart{Figures: figs, Body: b.String(), Result: rs, Reproduce: cmds}, nil
}

// searchBudgetNote says what loading the biggest corpus takes: PostgreSQL
// builds each GIN index on one core, and the biggest corpus's words
// index is the run's longest step.
func searchBudgetNote(e *allEnv, rs []searchResult) string {
	if e.quick || len(rs) == 0 {
		return ""
	}
	l := rs[len(rs)-1]
	if l.Load.TotalSeconds == 0 {
		return ""
	}
	when := "this run"
	if l.Load.Reused {
		when = "an earlier run"
	}
	return fmt.Sprintf("Loading is CPU-bound in PostgreSQL: the generated columns (folded text and tsvector) computed per row during COPY, then the GIN index of each thread's words, which PostgreSQL %s builds on one core (no parallel GIN builds before PostgreSQL 18). "+
		"Loading %s messages took %s in %s (COPY %.0f s, then the words index %.0f s on one core while the other cores took the other indexes and the smaller corpora): alone more than the whole report's 20-minute budget on this machine. "+
		"A loaded corpus is kept in the bench folder and reused by later runs; the default run measures 1,000,000 messages only, `--search-messages 1000000,10000000` adds 10,000,000.",
		e.machinePG(), groupThousands(l.Messages), minutes(l.Load.TotalSeconds), when, l.Load.CopySeconds, l.Load.indexSeconds("words"))
}

// allPrompt measures the prompt's size over a long conversation and draws
// the chart beside the report.
func allPrompt(ctx context.Context, e *allEnv) (allPart, error) {
	msgs, source := promptMessages(e.data, e.scale.PromptTurns)
	r, err := benchPrompt(ctx, e.db, e.cfg, e.log, msgs, source, e.stderr)
	if err != nil {
		return allPart{}, err
	}
	if err := writePromptChart(filepath.Join(e.dir, promptChartFile), r); err != nil {
		return allPart{}, err
	}
	last := r.at(r.Turns)
	peak, sum := 0, 0
	for _, p := range r.Points {
		peak = max(peak, p.Chars)
		sum += p.Chars
	}
	var b strings.Builder
	fmt.Fprintf(&b, "A %d-turn conversation (%s as the user's messages) through the engine with every layer on, as `yakor serve` runs it with the offline models: anchors, fact extraction, compaction into a running summary, the %s-character window, long-term memory recall (grades store experiences) and history search; "+
		"the post-turn jobs run after each turn. Each turn's trace gives its prompt's characters per layer (`found` is what the model's searches added in a second pass); the full context is what a client that resends the whole conversation would send: the same system prompt and every message so far.\n\n",
		r.Turns, r.Messages, groupThousands(r.WindowChars))
	fmt.Fprintf(&b, "At turn %s Yakor's prompt is %s characters against %s for the full context (%.1f× smaller); over the run its mean is %s and its largest %s. At the end the thread has %d summary rows, %d anchors, %d current facts and %d long-term memory entries.\n\n",
		groupThousands(r.Turns), groupThousands(last.Chars), groupThousands(last.Full), float64(last.Full)/float64(max(1, last.Chars)), groupThousands(sum/len(r.Points)), groupThousands(peak),
		r.Summaries, r.Anchors, r.Facts, r.Experiences)
	fmt.Fprintf(&b, "Anchors as the conversation's map: %.1f anchors set per 1,000 turns; at the end the older ones are folded into %d episodes besides the newest, and the anchors block still names topics back to turn %s (%.1f%% into the conversation).\n\n",
		r.Per1000, r.Episodes, groupThousands(r.SpanTurn), 100*float64(max(r.SpanTurn-1, 0))/float64(max(r.Turns, 1)))
	fmt.Fprintf(&b, "![Prompt size against turn number](%s)\n\n", promptChartFile)
	b.WriteString(promptTable(r, e.scale.PromptEvery))
	return allPart{
		Figures: []allFigure{{Figure: fmt.Sprintf("Prompt size at turn %s", groupThousands(r.Turns)),
			Value:  fmt.Sprintf("%s chars (full context %s, %.1f× more)", groupThousands(last.Chars), groupThousands(last.Full), float64(last.Full)/float64(max(1, last.Chars))),
			Detail: fmt.Sprintf("every layer on; largest over the run %s", groupThousands(peak))},
			{Figure: fmt.Sprintf("Anchors over %s turns", groupThousands(r.Turns)),
				Value:  fmt.Sprintf("%d set (%.1f per 1,000 turns); the block names turn %s onwards", r.Anchors, r.Per1000, groupThousands(r.SpanTurn)),
				Detail: fmt.Sprintf("%d episodes besides the newest anchors", r.Episodes)}},
		Body: b.String(), Result: r.thinned(10),
		Reproduce: []string{fmt.Sprintf("bin/yakor bench prompt --turns %d --every %d --png docs/%s", r.Turns, e.scale.PromptEvery, promptChartFile)},
	}, nil
}

// promptChartFile is the prompt chart's name, beside the report.
const promptChartFile = "prompt-size.png"

// allLocomo measures LoCoMo evidence recall with every layer on.
func allLocomo(ctx context.Context, e *allEnv) (allPart, error) {
	all, err := locomoRead(e.data)
	if err != nil {
		fmt.Fprintf(e.stderr, "bench all: LoCoMo evidence recall not measured: %v\n", err)
		return allPart{
			Body: "Not measured: this run had no LoCoMo data. It is LoCoMo's locomo10.json, given with `--data`; " +
				"[docs/development.md](development.md#benchmarks) says where to get it.\n",
			Figures: []allFigure{{Figure: "LoCoMo evidence recall", Value: "not measured", Detail: "no LoCoMo data: locomo10.json, given with --data"}},
		}, nil
	}
	convs := all
	if n := e.scale.Conversations; n > 0 && n < len(all) {
		convs = all[:n]
	}
	// The report names the data set by its file's name: where it lies is
	// this machine's business.
	rep, err := benchLocomoLoss(ctx, e.db, e.cfg, e.log, filepath.Base(e.data), all, convs, lossOptions{window: e.cfg.WindowChars, summary: lossSummaryChars, step: 2, exchanges: e.scale.ProbeExchanges}, e.stderr)
	if err != nil {
		return allPart{}, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "LoCoMo's %s (%s messages), each grown as a thread would be, a message and its reply at a time, with anchors, fact extraction and compaction run after each (offline helper); then, for each of its %s questions of categories 1–4, the share of its annotated evidence messages that the prompt can reach: "+
		"the window (%s characters), the running summary, the facts block, the anchors block, or history search with the question as the query (%s characters of hits). "+
		"*As a turn* is the prompt a turn would build for the question (the engine's preview): the window's oldest messages give way so that the prompt with the hits keeps the 30,000-character budget, and the search looks before what is left of the window, in the room left; *whole thread* searches all of it beside the whole window.\n\n",
		plural(rep.Conversations, "conversation"), groupThousands(rep.Messages), groupThousands(rep.Questions), groupThousands(rep.WindowChars), groupThousands(rep.SearchBudget))
	b.WriteString("| category | questions | window | summary | facts | anchors | search (first layer holding it) | reachable, as a turn | reachable, whole thread | without search | all of a question's evidence |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	pc := func(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }
	for _, r := range rep.Rows {
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Name, r.N, pc(r.First["window"]), pc(r.First["summary"]), pc(r.First["facts"]), pc(r.First["anchors"]), pc(r.First["search"]),
			pc(r.TurnReachable), pc(r.Reachable), pc(r.WithoutSearch), pc(r.AllEvidence))
	}
	overall := rep.Rows[len(rep.Rows)-1]
	fmt.Fprintf(&b, "\nEach text layer alone (the %s-character anchors block among them), holding a question's evidence whether another layer holds it too:\n\n", groupThousands(rep.AnchorBudget))
	b.WriteString("| category | questions | summary alone | facts alone | anchors alone |\n|---|---:|---:|---:|---:|\n")
	for _, r := range rep.Rows {
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s |\n", r.Name, r.N, pc(r.Alone["summary"]), pc(r.Alone["facts"]), pc(r.Alone["anchors"]))
	}
	fmt.Fprintf(&b, "\nBefore compaction (the same conversations imported whole, window and search only) %s of the evidence was reachable (%s as a turn); after it, with every layer, %s (%s as a turn). ",
		pc(overall.BeforeReachable), pc(overall.BeforeTurnReachable), pc(overall.Reachable), pc(overall.TurnReachable))
	reached := 0
	for _, p := range rep.Probes {
		if p.Reached {
			reached++
		}
	}
	fmt.Fprintf(&b, "Facts planted early in a %s-message thread, looked for in its last prompt without search: %d of %d reachable.\n", groupThousands(rep.ProbeThread.Messages), reached, len(rep.Probes))
	return allPart{
		Figures: []allFigure{{Figure: "LoCoMo evidence recall, every layer on", Value: fmt.Sprintf("%s as a turn; %s with whole-thread search", pc(overall.TurnReachable), pc(overall.Reachable)),
			Detail: fmt.Sprintf("%s questions of categories 1–4, %s", groupThousands(overall.N), plural(rep.Conversations, "conversation"))},
			{Figure: "LoCoMo evidence in the anchors block alone", Value: fmt.Sprintf("%s of categories 1–4; %s of the temporal ones", pc(overall.Alone["anchors"]), pc(lossRowAlone(rep.Rows, "2 temporal", "anchors"))),
				Detail: fmt.Sprintf("%s-character block", groupThousands(rep.AnchorBudget))}},
		Body: b.String(), Result: rep,
		Reproduce: []string{fmt.Sprintf("bin/yakor bench locomo-loss --data locomo10.json --probe-exchanges %d%s", e.scale.ProbeExchanges, conversationsFlag(e.scale.Conversations))},
	}, nil
}

// plural is "1 thing" or "n things".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

func conversationsFlag(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" --conversations %d", n)
}

// joinCounts joins counts with sep.
func joinCounts(ns []int, sep string) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, sep)
}

// lossRowAlone is the share of layer alone in the row named name (0 when
// there is none).
func lossRowAlone(rows []lossRow, name, layer string) float64 {
	for _, r := range rows {
		if r.Name == name {
			return r.Alone[layer]
		}
	}
	return 0
}
