package bench

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"yakor/app"
)

// runBenchAll runs the benchmarks behind docs/benchmarks.md and writes the
// report: Markdown, JSON beside it, and the prompt-size chart. A quick run
// writes into the bench folder unless --out says otherwise.
func runBenchAll(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlagSet("all", args, stdout, stderr)
	out := fs.String("out", "", "the report's Markdown file (default docs/benchmarks.md; with --quick, benchmarks-quick.md in the bench folder); the JSON goes beside it (.json) and the chart into the same folder (prompt-size.png)")
	quick := fs.Bool("quick", false, "a small-scale run of every section, for checking the report end to end (its figures mean little)")
	searchSizes := fs.String("search-messages", "", "messages in the database for the search section, comma-separated (default 1000000; 1000000,10000000 adds 10,000,000, whose first load takes about 25 minutes more on 2 cores: a loaded corpus is reused by later runs)")
	dataPath := fs.String("data", lossDefaultData, "LoCoMo's locomo10.json, for the LoCoMo section and the prompt section's user messages (docs/development.md says where to get it)")
	only := fs.String("only", "", "run only these sections, comma-separated ("+allSectionKeys()+"); the report then holds only them")
	fresh := fs.Bool("fresh", false, "load the turn and search corpora again even when an earlier run left them in the bench folder")
	binary := fs.String("binary", "", "the yakor binary the throughput section serves under load (default: this one)")
	cfg, err := parseFlags(fs, args, getenv)
	if err != nil {
		return err
	}
	scale, err := allScaleOf(*quick, *searchSizes)
	if err != nil {
		return err
	}
	sections, err := pickSections(*only)
	if err != nil {
		return fmt.Errorf("bench all: --only: %w", err)
	}
	if *out == "" {
		*out = allDefaultOut(*quick, cfg.DataDir)
	}
	start := time.Now()
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		return fmt.Errorf("bench all: %w", err)
	}
	db, log, err := openDatabase(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer db.Close()
	e := &allEnv{db: db, cfg: cfg, log: log, stderr: &lockedWriter{w: stderr}, scale: scale, quick: *quick, fresh: *fresh,
		data: lossResolve(*dataPath), dir: filepath.Dir(*out), private: db.Private(), binary: *binary}
	rep := allReport{Quick: *quick, Machine: machineFacts(ctx, db)}
	if rep.Sections, err = runSections(ctx, e, sections); err != nil {
		return err
	}
	for _, s := range sections {
		rep.Order = append(rep.Order, s.key)
	}
	rep.Seconds = time.Since(start).Seconds()
	jsonPath := strings.TrimSuffix(*out, filepath.Ext(*out)) + ".json"
	if err := os.WriteFile(*out, []byte(allMarkdown(rep, e)), 0o644); err != nil {
		return fmt.Errorf("bench all: %w", err)
	}
	if err := writeJSON(jsonPath, rep); err != nil {
		return fmt.Errorf("bench all: %w", err)
	}
	fmt.Fprintf(stdout, "yakor bench all: wrote %s and %s in %.0f s\n\n", *out, jsonPath, rep.Seconds)
	_, err = io.WriteString(stdout, allSummary(rep))
	return err
}

// allDefaultOut is the report's Markdown file without --out: the
// repository's docs/benchmarks.md, or for a quick run, whose figures are no
// one's to keep, benchmarks-quick.md in the bench folder.
func allDefaultOut(quick bool, benchDir string) string {
	if quick {
		return filepath.Join(benchDir, "benchmarks-quick.md")
	}
	return filepath.Join("docs", "benchmarks.md")
}

// allScaleOf is the run's scale: full or quick, with --search-messages'
// sizes when given.
func allScaleOf(quick bool, searchSizes string) (allScale, error) {
	scale := allFull
	if quick {
		scale = allQuick
	}
	if searchSizes != "" {
		var err error
		if scale.SearchSizes, err = parseCounts(searchSizes, 1); err != nil {
			return scale, fmt.Errorf("bench all: --search-messages: %w", err)
		}
	}
	for _, n := range scale.SearchSizes {
		if n < scale.SearchBig {
			return scale, fmt.Errorf("bench all: --search-messages: %d is fewer than the big thread's %d messages", n, scale.SearchBig)
		}
	}
	return scale, nil
}

// allSection is one section of the report: a benchmark run and what it
// adds to the report. A new section is a new entry of allSections.
type allSection struct {
	key   string // in the JSON
	title string
	// timed sections measure time: they run alone, one after another,
	// once every load and every untimed section is done. Untimed sections
	// (sizes, shares) run beside the loads, whose CPU they do not need to
	// be measured right.
	timed bool
	// load, when set, loads what a timed section measures and returns its
	// measuring; loads run one after another, by loadOrder, each one's
	// index builds beside the next one's COPY (loadPipeline).
	load      func(ctx context.Context, e *allEnv) (allMeasure, error)
	loadOrder int
	run       allMeasure // a section without a load
}

// allMeasure runs a section's benchmark and renders its part.
type allMeasure func(ctx context.Context, e *allEnv) (allPart, error)

// allSections are the report's sections, in order.
func allSections() []allSection {
	return []allSection{
		{key: "turn", title: "Memory layer cost per turn", timed: true, load: allTurnLoad, loadOrder: 1},
		// The search corpora load first: the biggest one's words index
		// is the run's longest build.
		{key: "search", title: "History search latency", timed: true, load: allSearchLoad},
		{key: "load", title: "Throughput and peak memory under load", timed: true, run: allLoad},
		{key: "upkeep", title: "Memory upkeep: helper calls and characters per turn", run: allUpkeep},
		{key: "prompt", title: "Prompt size over a long conversation", run: allPrompt},
		{key: "locomo", title: "LoCoMo evidence recall, every layer on", run: allLocomo},
		{key: "distributed", title: "Distributed: Citus, a coordinator and two workers", timed: true, run: allDistributed},
	}
}

// runSections runs the loads through a pipeline and, beside them once the
// first COPY has ended, the untimed sections, each holding one of the
// pipeline's CPU slots; then the timed sections, alone.
func runSections(ctx context.Context, e *allEnv, sections []allSection) (map[string]allPart, error) {
	r := &sectionRun{e: e, parts: map[string]allPart{}, measures: map[string]allMeasure{}, loadTook: map[string]float64{}}
	g, gctx := errgroup.WithContext(ctx)
	slots := newCPUSlots(0)
	e.pipe = newLoadPipeline(gctx, slots)
	g.Go(func() error { return r.loads(gctx, sections) })
	g.Go(func() error {
		select {
		case <-e.pipe.copied:
		case <-gctx.Done():
			return gctx.Err()
		}
		for _, s := range sections {
			if s.timed {
				continue
			}
			if err := slots.acquire(gctx, slotWork); err != nil {
				return err
			}
			err := r.run(gctx, s, s.run)
			slots.release()
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	settle(ctx, e)
	for _, s := range sections {
		if !s.timed {
			continue
		}
		m := s.run
		if s.load != nil {
			m = r.measures[s.key]
		}
		if err := r.run(ctx, s, m); err != nil {
			return nil, err
		}
	}
	return r.parts, nil
}

// settle lets the cluster finish what the loads and untimed sections left
// behind before the timed sections start: a checkpoint, so that their
// dirty pages are not written during a measurement, and the autovacuum
// workers they woke, for at most settleWait. It only waits: a failure is
// reported and the run goes on.
func settle(ctx context.Context, e *allEnv) {
	t := time.Now()
	if _, err := e.db.Owner.Exec(ctx, `CHECKPOINT`); err != nil {
		fmt.Fprintf(e.stderr, "bench all: checkpoint before the timed sections: %v\n", err)
	}
	for time.Since(t) < settleWait {
		var n int
		err := e.db.Owner.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'`).Scan(&n)
		if err != nil || n == 0 {
			break
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
	fmt.Fprintf(e.stderr, "bench all: the cluster settled in %.0f s\n", time.Since(t).Seconds())
}

// settleWait bounds settle's wait for autovacuum.
const settleWait = 3 * time.Minute

// sectionRun is what runSections' steps share.
type sectionRun struct {
	e        *allEnv
	mu       sync.Mutex
	parts    map[string]allPart
	measures map[string]allMeasure
	loadTook map[string]float64
}

// loads runs the sections' loads one after another, by loadOrder, then
// waits for the pipeline to finish them.
func (r *sectionRun) loads(ctx context.Context, sections []allSection) error {
	e := r.e
	loads := slices.Clone(sections)
	slices.SortStableFunc(loads, func(a, b allSection) int { return cmp.Compare(a.loadOrder, b.loadOrder) })
	for _, s := range loads {
		if s.load == nil {
			continue
		}
		fmt.Fprintf(e.stderr, "bench all: loading for %s…\n", s.title)
		t := time.Now()
		m, err := s.load(ctx, e)
		if err != nil {
			return fmt.Errorf("bench all: %s: %w", s.title, err)
		}
		r.mu.Lock()
		r.measures[s.key], r.loadTook[s.key] = m, time.Since(t).Seconds()
		r.mu.Unlock()
		fmt.Fprintf(e.stderr, "bench all: written for %s in %.0f s\n", s.title, time.Since(t).Seconds())
	}
	if err := e.pipe.wait(); err != nil {
		return fmt.Errorf("bench all: %w", err)
	}
	fmt.Fprintf(e.stderr, "bench all: every corpus loaded\n")
	return nil
}

// run measures section s with m and keeps its part.
func (r *sectionRun) run(ctx context.Context, s allSection, m allMeasure) error {
	e := r.e
	fmt.Fprintf(e.stderr, "bench all: %s…\n", s.title)
	t := time.Now()
	part, err := m(ctx, e)
	if err != nil {
		return fmt.Errorf("bench all: %s: %w", s.title, err)
	}
	part.Title, part.Seconds = s.title, time.Since(t).Seconds()
	r.mu.Lock()
	part.LoadSeconds = r.loadTook[s.key]
	r.parts[s.key] = part
	r.mu.Unlock()
	fmt.Fprintf(e.stderr, "bench all: %s took %.0f s\n", s.title, part.Seconds)
	return nil
}

// lockedWriter serialises writes to w, which sections running at once
// share.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// allSectionKeys names the sections, comma-separated.
func allSectionKeys() string {
	var keys []string
	for _, s := range allSections() {
		keys = append(keys, s.key)
	}
	return strings.Join(keys, ", ")
}

// pickSections returns the sections named in only (all when it is empty),
// in report order.
func pickSections(only string) ([]allSection, error) {
	if only == "" {
		return allSections(), nil
	}
	want := map[string]bool{}
	for _, k := range strings.Split(only, ",") {
		want[strings.TrimSpace(k)] = true
	}
	var out []allSection
	for _, s := range allSections() {
		if want[s.key] {
			out = append(out, s)
			delete(want, s.key)
		}
	}
	for k := range want {
		return nil, fmt.Errorf("no section %q: say %s", k, allSectionKeys())
	}
	return out, nil
}

// allPart is what a section adds to the report.
type allPart struct {
	Title     string      `json:"title"`
	Figures   []allFigure `json:"figures"`   // rows of the summary table
	Body      string      `json:"-"`         // Markdown, after the section's title
	Reproduce []string    `json:"reproduce"` // commands that measure its figures alone
	Result    any         `json:"result"`
	// LoadSeconds is the load before a timed section's measuring until
	// its rows were written (its index builds went on beside the next
	// load: its corpora's figures say what each load took), Seconds the
	// measuring (an untimed section's run, beside the loads).
	LoadSeconds float64 `json:"load_seconds,omitempty"`
	Seconds     float64 `json:"seconds"`
}

// allFigure is one row of the summary table.
type allFigure struct {
	Figure string `json:"figure"`
	Value  string `json:"value"`
	Detail string `json:"detail"`
}

// allReport is the whole report.
type allReport struct {
	Quick    bool               `json:"quick"`
	Machine  allMachine         `json:"machine"`
	Order    []string           `json:"order"`
	Sections map[string]allPart `json:"sections"`
	Seconds  float64            `json:"seconds"`
}

// allEnv is what sections run with.
type allEnv struct {
	db      *database
	cfg     app.Config
	log     *slog.Logger
	stderr  io.Writer
	scale   allScale
	quick   bool
	fresh   bool
	pipe    *loadPipeline // the corpus loads' (runSections)
	data    string        // locomo10.json
	dir     string        // the report's folder
	private bool          // the benchmark runs its own cluster
	binary  string        // the yakor binary the load section serves ("": this one)
}

// allScale is how big each section's run is.
type allScale struct {
	TurnSizes      []int `json:"turn_sizes"`
	Turns          int   `json:"turns"`
	SearchSizes    []int `json:"search_sizes"`
	SearchBig      int   `json:"search_big"`
	Queries        int   `json:"queries"`
	PromptTurns    int   `json:"prompt_turns"`
	UpkeepTurns    int   `json:"upkeep_turns"`
	PromptEvery    int   `json:"prompt_every"`
	Conversations  int   `json:"conversations"` // 0: all
	ProbeExchanges int   `json:"probe_exchanges"`
	// LoadConversations run LoadTurns turns each, all at once, for the
	// throughput section.
	LoadConversations int `json:"load_conversations"`
	LoadTurns         int `json:"load_turns"`
	// CitusTurnSizes and CitusSearch are the distributed section's turn
	// threads and search corpus, loaded through the coordinator.
	CitusTurnSizes []int `json:"citus_turn_sizes"`
	CitusSearch    int   `json:"citus_search"`
}

var (
	allFull = allScale{
		TurnSizes: []int{1_000, 100_000, 1_000_000}, Turns: 1000,
		SearchSizes: []int{1_000_000}, SearchBig: 100_000, Queries: 1000,
		PromptTurns: 2000, PromptEvery: 100, ProbeExchanges: 600, UpkeepTurns: 200,
		LoadConversations: 200, LoadTurns: 25,
		CitusTurnSizes: []int{1_000, 100_000}, CitusSearch: 1_000_000,
	}
	allQuick = allScale{
		TurnSizes: []int{100, 2_000}, Turns: 20,
		SearchSizes: []int{5_000}, SearchBig: 1_000, Queries: 40,
		PromptTurns: 60, PromptEvery: 20, Conversations: 1, ProbeExchanges: 40, UpkeepTurns: 20,
		LoadConversations: 4, LoadTurns: 3,
		CitusTurnSizes: []int{100, 2_000}, CitusSearch: 5_000,
	}
)
