package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/account"
	"yakor/anchors"
	"yakor/app"
	"yakor/facts"
	"yakor/history"
	"yakor/search"
	"yakor/turn"
)

// The layers of a prompt that can carry a message's content, in the order
// they are checked: the first that holds an evidence message is where it
// is counted.
const (
	lossWindow = iota
	lossSummary
	lossFacts
	lossAnchors
	lossSearch
	lossNLayers
)

// lossLayerNames names the layers, in their order.
var lossLayerNames = [lossNLayers]string{"window", "summary", "facts", "anchors", "search"}

// lossTextLayers are the layers whose text is tested for an evidence
// message's content (the window and search are tested by message id).
var lossTextLayers = []int{lossSummary, lossFacts, lossAnchors}

// lossDefaultData is where the data set lies, relative to the repository's
// root.
const lossDefaultData = "../shared/bench/locomo/locomo10.json"

// runBenchLocomoLoss measures what compaction loses on LoCoMo: each
// conversation grows as a thread would, a few messages at a time, with the
// memory pipeline (anchors, facts, compaction) run after each step; then,
// for each question of categories 1–4, where its evidence is still
// reachable: the window, the summary, the facts, the anchors or history
// search. The same conversation imported into a second thread without the
// pipeline gives the shares before compaction (window and search). A
// synthetic thread with planted facts early in a long run checks that they
// are still reachable at its end without search.
func runBenchLocomoLoss(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlagSet("locomo-loss", args, stdout, stderr)
	dataPath := fs.String("data", lossDefaultData, "LoCoMo's locomo10.json (docs/development.md says where to get it); a relative path not found from the working folder is taken from the repository's root")
	window := fs.Int("window", 20000, "history window budget in characters: the window read and the compaction's threshold")
	convN := fs.Int("conversations", 0, "conversations measured, the first ones (0: all)")
	step := fs.Int("step", 2, "messages added between two runs of the pipeline: 2 is a turn (a message and its reply); 0 imports a conversation whole, then runs the pipeline once")
	exchanges := fs.Int("probe-exchanges", 600, "filler exchanges (message and reply) after the planted facts of the probe thread")
	summary := fs.Int("summary-chars", lossSummaryChars, "the compaction's summary size at most, in characters")
	keep := fs.Bool("keep", false, "leave the benchmark's tenants (threads, summaries, facts, anchors) in the database to inspect them")
	jsonPath := fs.String("json", "", "also write the results as JSON to this file")
	cfg, err := parseFlags(fs, args, getenv)
	if err != nil {
		return err
	}
	if *window <= 0 || *summary <= 0 || *convN < 0 || *step < 0 || *exchanges < 0 {
		return errors.New("bench locomo-loss: --window and --summary-chars must be positive; --conversations, --step and --probe-exchanges not negative")
	}
	path := lossResolve(*dataPath)
	all, err := locomoRead(path)
	if err != nil {
		return fmt.Errorf("bench locomo-loss: %w", err)
	}
	convs := all
	if *convN > 0 && *convN < len(all) {
		convs = all[:*convN]
	}
	if len(convs) == 0 {
		return fmt.Errorf("bench locomo-loss: %s holds no conversation", path)
	}

	db, log, err := openDatabase(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer db.Close()
	rep, err := benchLocomoLoss(ctx, db, cfg, log, path, all, convs, lossOptions{window: *window, summary: *summary, step: *step, exchanges: *exchanges, keep: *keep}, stderr)
	if err != nil {
		return err
	}
	if err := lossPrint(stdout, rep); err != nil {
		return err
	}
	if err := writeJSON(*jsonPath, rep); err != nil {
		return fmt.Errorf("bench locomo-loss: %w", err)
	}
	return nil
}

// lossOptions are the settings of one locomo-loss run.
type lossOptions struct {
	window, step, exchanges int
	summary                 int  // the compaction's summary size at most
	keep                    bool // leave the tenants in the database
}

// benchLocomoLoss grows convs (of all, read from path) through the memory
// pipeline, then a probe thread, and measures where the questions'
// evidence and the probes are reachable.
func benchLocomoLoss(ctx context.Context, db *database, cfg app.Config, log *slog.Logger, path string, all, convs []locomoConv, o lossOptions, stderr io.Writer) (lossReport, error) {
	p, err := newLossPipeline(ctx, db, cfg, log, o)
	if err != nil {
		return lossReport{}, err
	}
	var tenants []string
	defer func() {
		if o.keep {
			fmt.Fprintf(stderr, "bench locomo-loss: kept tenants %s\n", strings.Join(tenants, ", "))
			return
		}
		for _, id := range tenants {
			deleteTenant(db.Database, id)
		}
	}()
	newScope := func(name string) (yakor.Scope, error) {
		// A tenant per thread: a user's facts reach all their threads.
		scope, err := p.accounts.CreateTenantUser(ctx, name)
		if err == nil {
			tenants = append(tenants, scope.TenantID)
		}
		return scope, err
	}
	rep := lossReport{
		Data: path, WindowChars: o.window, Step: o.step, SearchBudget: cfg.SearchBudget, SummaryChars: o.summary,
		FactBudget: cfg.FactBudget, AnchorBudget: cfg.AnchorBudget, Helper: "offline", Layers: lossLayerNames[:],
		Conversations: len(convs),
	}
	if err := p.conversations(ctx, convs, newScope, &rep, stderr); err != nil {
		return rep, err
	}
	start := time.Now()
	scope, err := newScope("bench locomo-loss probes")
	if err != nil {
		return rep, err
	}
	rep.Probes, rep.ProbeThread, err = p.probes(ctx, scope, lossFiller(all, o.exchanges*2))
	if err != nil {
		return rep, fmt.Errorf("bench locomo-loss: probes: %w", err)
	}
	rep.Seconds.Probes = time.Since(start).Seconds()
	return rep, nil
}

// conversations grows and measures each conversation in a tenant of its
// own (newScope), and fills rep's rows, threads and times.
func (p *lossPipeline) conversations(ctx context.Context, convs []locomoConv, newScope func(string) (yakor.Scope, error), rep *lossReport, stderr io.Writer) error {
	var (
		scores  []lossScore
		texts   []lossLayers // per conversation, for the chance control
		started = time.Now()
	)
	for _, c := range convs {
		scope, err := newScope("bench locomo-loss " + c.id)
		if err != nil {
			return err
		}
		got, layers, stats, err := p.conversation(ctx, scope, c)
		if err != nil {
			return fmt.Errorf("bench locomo-loss: %s: %w", c.id, err)
		}
		scores = append(scores, got...)
		texts = append(texts, layers)
		rep.Threads = append(rep.Threads, stats)
		rep.Messages += len(c.msgs)
		fmt.Fprintf(stderr, "bench locomo-loss: %s: %d messages, %d summaries, %d questions in %.1f s\n",
			c.id, len(c.msgs), stats.Summaries, len(got), stats.PipelineSeconds+stats.MeasureSeconds)
	}
	rep.Seconds.Conversations = time.Since(started).Seconds()
	for _, t := range rep.Threads {
		rep.Seconds.Load += t.LoadSeconds
		rep.Seconds.Pipeline += t.PipelineSeconds
		rep.Seconds.Measure += t.MeasureSeconds
	}
	for _, s := range scores {
		if s.leftOut {
			rep.LeftOut++
			continue
		}
		rep.Questions++
		if s.lost || s.msgSearchLost {
			rep.Lost = append(rep.Lost, s.detail)
		}
	}
	for _, r := range lossRows {
		rep.Rows = append(rep.Rows, lossAggregate(r.name, r.categories, scores))
	}
	if len(convs) > 1 {
		rep.Chance = lossChance(convs, texts)
	}
	return nil
}

// lossResolve returns path, or, when it is relative and not found from the
// working folder, path taken from the repository's root (the nearest
// folder above with a go.mod), when it is there.
func lossResolve(path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	if _, err := os.Stat(path); err == nil {
		return path
	}
	dir, err := os.Getwd()
	if err != nil {
		return path
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if p := filepath.Join(dir, path); fileExists(p) {
				return p
			}
			return path
		}
		up := filepath.Dir(dir)
		if up == dir {
			return path
		}
		dir = up
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// lossSummaryChars is the compaction's summary size at most by default:
// the compactor's own default for the default window.
const lossSummaryChars = 4000

// lossPipeline runs the memory pipeline of a thread offline, as a server's
// jobs would after each turn, and reads the layers a prompt would get.
type lossPipeline struct {
	db        *database
	accounts  *account.Store
	hist      *history.Store
	anchors   *anchors.Service
	facts     *facts.Store
	compactor *history.Compactor
	searcher  *search.Searcher
	engine    *turn.Engine // its Preview is the prompt a turn would build
	window    int
	step      int
	budget    int // search budget
}

// newLossPipeline is the pipeline of Yakor as app.New builds it from cfg,
// on the owner's pool (no row-level security), with compaction and facts
// on, the window o.window, the compaction's summary at most o.summary, and
// every model offline.
func newLossPipeline(ctx context.Context, db *database, cfg app.Config, log *slog.Logger, o lossOptions) (*lossPipeline, error) {
	cfg.WindowChars = o.window
	cfg.Compaction, cfg.Facts, cfg.SearchSemantic = true, true, false
	a, err := newApp(ctx, cfg, log, db.Database, app.WithTenantDB(db.Owner), app.WithInlineJobs(),
		app.WithTuning(func(t *app.Tuning) { t.Compact.SummaryChars = o.summary }))
	if err != nil {
		return nil, err
	}
	return &lossPipeline{db: db, accounts: a.Accounts, hist: a.History, anchors: a.Anchors, facts: a.Facts, compactor: a.Compactor,
		searcher: a.Searcher, engine: a.Engine, window: o.window, step: o.step, budget: cfg.SearchBudget}, nil
}

// grow imports msgs into a new thread of scope, p.step messages at a time
// (all at once when p.step is 0), running after each step what a turn's
// jobs run. It returns the thread's scope and the id of each of msgs.
func (p *lossPipeline) grow(ctx context.Context, scope yakor.Scope, title string, msgs []history.NewMessage) (yakor.Scope, []int64, error) {
	th, err := p.hist.CreateThread(ctx, scope, history.ThreadCreate{Title: title})
	if err != nil {
		return scope, nil, err
	}
	scope = scope.WithThread(th.ID)
	step := p.step
	if step == 0 {
		step = max(len(msgs), 1)
	}
	for i := 0; i < len(msgs); i += step {
		if _, err := p.hist.Import(ctx, scope, msgs[i:min(i+step, len(msgs))]); err != nil {
			return scope, nil, err
		}
		if err := p.run(ctx, scope); err != nil {
			return scope, nil, err
		}
	}
	rows, err := p.db.Owner.Query(ctx, `SELECT id FROM messages WHERE tenant_id = $1 AND thread_id = $2 AND kind <> 'summary' ORDER BY id`,
		scope.TenantID, scope.ThreadID)
	if err != nil {
		return scope, nil, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return scope, nil, err
	}
	if len(ids) != len(msgs) {
		return scope, nil, fmt.Errorf("imported %d messages, read back %d", len(msgs), len(ids))
	}
	return scope, ids, nil
}

// run is the pipeline after a step, in the order of a turn's jobs:
// anchors, facts, compaction (which flushes facts itself, too).
func (p *lossPipeline) run(ctx context.Context, scope yakor.Scope) error {
	var last int64
	if err := p.db.Owner.QueryRow(ctx, `SELECT coalesce(max(id), 0) FROM messages WHERE tenant_id = $1 AND thread_id = $2 AND kind <> 'summary'`,
		scope.TenantID, scope.ThreadID).Scan(&last); err != nil {
		return err
	}
	if _, err := p.anchors.Apply(ctx, scope, last); err != nil {
		return err
	}
	// One call reads a batch of messages: call it until its cursor is at
	// the last message (or stops moving).
	for prev := int64(-1); ; {
		if _, err := p.facts.Extract(ctx, scope, 0); err != nil {
			return err
		}
		var cursor int64
		if err := p.db.Owner.QueryRow(ctx, `SELECT coalesce(max(through_id), 0) FROM fact_cursors WHERE tenant_id = $1 AND thread_id = $2`,
			scope.TenantID, scope.ThreadID).Scan(&cursor); err != nil {
			return err
		}
		if cursor >= last || cursor == prev {
			break
		}
		prev = cursor
	}
	if _, err := p.compactor.CompactAll(ctx, scope); err != nil {
		return err
	}
	return nil
}
