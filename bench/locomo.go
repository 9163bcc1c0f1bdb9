package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/account"
	"yakor/app"
	"yakor/history"
	"yakor/search"
)

// locomoConfigs are the memory configurations measured, in table order: what
// reaches the prompt besides the question.
var locomoConfigs = []string{"search top 5", "search top 10", "search budget", "window", "window + top 10", "window + budget"}

// Indexes into locomoConfigs.
const (
	locomoTop5 = iota
	locomoTop10
	locomoBudget
	locomoWindow
	locomoWindowTop10
	locomoWindowBudget
	locomoNConfigs
)

// locomoBudgetConfigs are the configurations whose added characters are
// reported.
var locomoBudgetConfigs = []int{locomoBudget, locomoWindowBudget}

// runBenchLocomo measures how much of LoCoMo's annotated evidence each memory
// configuration brings into the prompt: every conversation is imported as a
// thread of a fresh tenant, every question is the search query, and the
// evidence recall of search, window and both is averaged per category.
func runBenchLocomo(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlagSet("locomo", args, stdout, stderr)
	dataPath := fs.String("data", "", "LoCoMo's locomo10.json (required; docs/development.md says where to get it)")
	var o locomoOptions
	fs.IntVar(&o.window, "window", 20000, "history window budget in characters")
	fs.IntVar(&o.budget, "budget", search.DefaultBudget, "search budget in characters for the budget configurations")
	jsonPath := fs.String("json", "", "also write the results as JSON to this file")
	fs.BoolVar(&o.semantic, "semantic", false, "also embed every message with the offline embedder and fuse the semantic leg into search")
	fs.Float64Var(&o.minSim, "min-similarity", search.DefaultMinSimilarity, "with --semantic, or the meaning leg (on unless YAKOR_SEARCH_MEANING=false): the cosine similarity a neighbour needs to be ranked")
	cfg, err := parseFlags(fs, args, getenv)
	switch {
	case err != nil:
		return err
	case *dataPath == "":
		return errors.New("bench locomo: --data is required: the path of locomo10.json")
	case o.window < 0 || o.budget <= 0:
		return errors.New("bench locomo: --window must be at least 0 and --budget at least 1")
	case o.minSim <= -1 || o.minSim > 1 || o.minSim == 0:
		return errors.New("bench locomo: --min-similarity must be in (-1, 1] and not 0")
	}
	convs, err := locomoRead(*dataPath)
	if err != nil {
		return fmt.Errorf("bench locomo: %w", err)
	}
	db, log, err := openDatabase(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer db.Close()
	rep, err := benchLocomo(ctx, db, cfg, log, convs, o, stderr)
	if err != nil {
		return err
	}
	rep.Data = *dataPath
	if err := locomoPrint(stdout, rep); err != nil {
		return err
	}
	if err := writeJSON(*jsonPath, rep); err != nil {
		return fmt.Errorf("bench locomo: %w", err)
	}
	return nil
}

// locomoOptions are the settings of one locomo run.
type locomoOptions struct {
	window, budget int
	semantic       bool
	minSim         float64
}

// benchLocomo imports convs into threads of a fresh tenant and measures
// each question's evidence recall with Yakor's history store and searcher
// as app.New builds them (on the owner's pool), with a semantic leg when
// o.semantic says so.
func benchLocomo(ctx context.Context, db *database, cfg app.Config, log *slog.Logger, convs []locomoConv, o locomoOptions, stderr io.Writer) (locomoReport, error) {
	rep := locomoReport{WindowChars: o.window, BudgetChars: o.budget, Legs: []string{"keywords", "full text"}, Configs: locomoConfigs, Conversations: len(convs)}
	scope, err := account.NewStore(db.Owner).CreateTenantUser(ctx, "bench locomo")
	if err != nil {
		return rep, err
	}
	defer deleteTenant(db.Database, scope.TenantID)
	cfg.SearchSemantic = o.semantic
	a, err := newApp(ctx, cfg, log, db.Database, app.WithTenantDB(db.Owner), app.WithLocalScope(scope), app.WithInlineJobs())
	if err != nil {
		return rep, err
	}
	switch {
	case a.Messages != nil:
		rep.Legs = append(rep.Legs, fmt.Sprintf("semantic (%s, %d nearest, min similarity %.2f)", a.Memory.Space().Name(), search.SemanticCandidates, o.minSim))
	case cfg.SearchMeaning:
		rep.Legs = append(rep.Legs, fmt.Sprintf("meaning (word vectors, %d nearest, min similarity %.2f)", search.SemanticCandidates, o.minSim))
	}
	threads, err := locomoLoadAll(ctx, db, a, scope, convs, &rep, stderr)
	if err != nil {
		return rep, err
	}
	runStart := time.Now()
	var scores []locomoScore
	for i, c := range convs {
		start := time.Now()
		got, err := locomoMeasure(ctx, a, threads[i], c, o)
		if err != nil {
			return rep, fmt.Errorf("bench locomo: %s: %w", c.id, err)
		}
		scores = append(scores, got...)
		fmt.Fprintf(stderr, "bench locomo: %s: %d questions in %.1f s\n", c.id, len(got), time.Since(start).Seconds())
	}
	rep.RunSeconds = time.Since(runStart).Seconds()
	locomoSummarize(&rep, convs, scores)
	return rep, nil
}

// locomoLoadAll imports each conversation into a thread of scope, embeds
// its messages when search has a semantic leg, and fills rep's load
// figures.
func locomoLoadAll(ctx context.Context, db *database, a *app.App, scope yakor.Scope, convs []locomoConv, rep *locomoReport, stderr io.Writer) ([]locomoThread, error) {
	loadStart := time.Now()
	var embedTook time.Duration
	threads := make([]locomoThread, len(convs))
	for i, c := range convs {
		var err error
		if threads[i], err = locomoLoad(ctx, db, a.History, scope, c); err != nil {
			return nil, fmt.Errorf("bench locomo: load %s: %w", c.id, err)
		}
		fmt.Fprintf(stderr, "bench locomo: loaded %s: %d messages\n", c.id, len(c.msgs))
		if a.Messages != nil {
			start := time.Now()
			n, err := a.Messages.EmbedThread(ctx, threads[i].scope, 0)
			if err != nil {
				return nil, fmt.Errorf("bench locomo: embed %s: %w", c.id, err)
			}
			embedTook += time.Since(start)
			rep.Embedded += n
		}
	}
	if _, err := db.Owner.Exec(ctx, `ANALYZE messages`); err != nil {
		return nil, err
	}
	if a.Messages != nil {
		if _, err := db.Owner.Exec(ctx, `ANALYZE message_embeddings`); err != nil {
			return nil, err
		}
	}
	rep.LoadSeconds, rep.EmbedSeconds = time.Since(loadStart).Seconds(), embedTook.Seconds()
	return threads, nil
}

// locomoSummarize counts convs' messages and scores' questions into rep and
// aggregates its rows.
func locomoSummarize(rep *locomoReport, convs []locomoConv, scores []locomoScore) {
	for _, c := range convs {
		rep.Messages += len(c.msgs)
		rep.DroppedEvidence += c.dropped
	}
	var noShared []locomoScore
	for _, s := range scores {
		rep.Questions++
		if s.leftOut {
			rep.LeftOut++
		}
		if s.noSharedKeyword {
			noShared = append(noShared, s)
		}
	}
	for _, r := range locomoRows {
		in := scores
		if r.noSharedKeyword {
			in = noShared
		}
		rep.Rows = append(rep.Rows, locomoAggregate(r.name, r.categories, in))
	}
}

// locomoThread is one conversation loaded: its scope and the id of each of
// its messages, in import order.
type locomoThread struct {
	scope yakor.Scope
	ids   []int64
}

// locomoLoad imports a conversation into a new thread with hist and reads
// back its message ids (Import returns only a count; ids follow import
// order).
func locomoLoad(ctx context.Context, db *database, hist *history.Store, scope yakor.Scope, c locomoConv) (locomoThread, error) {
	th, err := hist.CreateThread(ctx, scope, history.ThreadCreate{Title: "locomo " + c.id})
	if err != nil {
		return locomoThread{}, err
	}
	scope = scope.WithThread(th.ID)
	if _, err := hist.Import(ctx, scope, c.msgs); err != nil {
		return locomoThread{}, err
	}
	rows, err := db.Owner.Query(ctx, `SELECT id FROM messages WHERE tenant_id = $1 AND thread_id = $2 ORDER BY id`, scope.TenantID, scope.ThreadID)
	if err != nil {
		return locomoThread{}, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return locomoThread{}, err
	}
	if len(ids) != len(c.msgs) {
		return locomoThread{}, fmt.Errorf("imported %d messages, read back %d", len(c.msgs), len(ids))
	}
	return locomoThread{scope: scope, ids: ids}, nil
}

// locomoScore is one question's result.
type locomoScore struct {
	category        int
	noSharedKeyword bool                    // no keyword of the question is in its evidence
	leftOut         bool                    // no valid evidence: not measured
	recall          [locomoNConfigs]float64 // per configuration
	chars           [locomoNConfigs]int     // characters of hits added, per search configuration
	latency         []float64               // ms, one per Search call
}

// locomoMeasure runs every question of a conversation through every
// configuration. The window is the newest messages at the end of the
// conversation, as a turn after the last message would load it.
func locomoMeasure(ctx context.Context, a *app.App, th locomoThread, c locomoConv, o locomoOptions) ([]locomoScore, error) {
	win, err := a.History.Window(ctx, th.scope, o.window, 0)
	if err != nil {
		return nil, err
	}
	inWindow := make(map[int64]bool, len(win))
	var firstID int64
	for _, m := range win {
		inWindow[m.ID] = true
	}
	if len(win) > 0 {
		firstID = win[0].ID
	}
	runs := []struct {
		config int
		opt    search.Options
	}{
		{locomoTop5, search.Options{Budget: -1, Limit: 5}},
		{locomoTop10, search.Options{Budget: -1, Limit: 10}},
		{locomoBudget, search.Options{Budget: o.budget}},
		{locomoWindowTop10, search.Options{Budget: -1, Limit: 10, BeforeID: firstID}},
		{locomoWindowBudget, search.Options{Budget: o.budget, BeforeID: firstID}},
	}
	scores := make([]locomoScore, 0, len(c.questions))
	for _, q := range c.questions {
		s := locomoScore{category: q.category, noSharedKeyword: q.noSharedKeyword, leftOut: len(q.evidence) == 0}
		if s.leftOut {
			scores = append(scores, s)
			continue
		}
		evidence := make([]int64, len(q.evidence))
		for i, idx := range q.evidence {
			evidence[i] = th.ids[idx]
		}
		s.recall[locomoWindow] = locomoRecall(evidence, inWindow)
		for _, r := range runs {
			r.opt.MinSimilarity = o.minSim
			start := time.Now()
			res, err := a.Searcher.Search(ctx, th.scope, q.text, r.opt)
			if err == nil {
				err = res.SemanticErr // a benchmark does not go on without a leg
			}
			if err != nil {
				return nil, fmt.Errorf("search %q: %w", q.text, err)
			}
			s.latency = append(s.latency, float64(time.Since(start).Microseconds())/1000)
			found := map[int64]bool{}
			if r.config == locomoWindowTop10 || r.config == locomoWindowBudget {
				found = maps.Clone(inWindow)
			}
			for _, h := range res.Hits {
				found[h.MessageID] = true // neighbours reach the prompt too
				s.chars[r.config] += utf8.RuneCountInString(h.Content)
			}
			s.recall[r.config] = locomoRecall(evidence, found)
		}
		scores = append(scores, s)
	}
	return scores, nil
}

// locomoRecall is the share of evidence ids that are in found.
func locomoRecall(evidence []int64, found map[int64]bool) float64 {
	if len(evidence) == 0 {
		return 0
	}
	n := 0
	for _, id := range evidence {
		if found[id] {
			n++
		}
	}
	return float64(n) / float64(len(evidence))
}

// locomoRows are the table's rows: the categories, as the dataset's README
// names them, and categories 1–4 together; category 5 (adversarial) apart
// from the overall row; last, the questions of categories 1–4 that share no
// keyword with their evidence, which only meaning (or a neighbour) can
// find.
var locomoRows = []struct {
	name            string
	categories      []int
	noSharedKeyword bool // only the questions sharing no keyword with their evidence
}{
	{"1 multi-hop", []int{1}, false},
	{"2 temporal", []int{2}, false},
	{"3 open-domain", []int{3}, false},
	{"4 single-hop", []int{4}, false},
	{"1–4 overall", []int{1, 2, 3, 4}, false},
	{"5 adversarial", []int{5}, false},
	{"1–4 no shared keyword", []int{1, 2, 3, 4}, true},
}

// locomoReport is the benchmark's result, printed and written as JSON.
type locomoReport struct {
	Data            string      `json:"data"`
	WindowChars     int         `json:"window_chars"`
	BudgetChars     int         `json:"budget_chars"`
	Legs            []string    `json:"legs"`                    // search's ranking legs
	Embedded        int         `json:"embedded,omitempty"`      // messages embedded for the semantic leg
	EmbedSeconds    float64     `json:"embed_seconds,omitempty"` // spent embedding them (part of load)
	Conversations   int         `json:"conversations"`
	Messages        int         `json:"messages"`
	Questions       int         `json:"questions"`
	LeftOut         int         `json:"left_out"`             // questions with no valid evidence
	DroppedEvidence int         `json:"dropped_evidence_ids"` // malformed or unknown evidence ids
	LoadSeconds     float64     `json:"load_seconds"`
	RunSeconds      float64     `json:"run_seconds"`
	Configs         []string    `json:"configs"`
	Rows            []locomoRow `json:"rows"`
}

// locomoRow is one row of the table.
type locomoRow struct {
	Name    string             `json:"name"`
	N       int                `json:"n"`        // questions measured
	LeftOut int                `json:"left_out"` // questions with no valid evidence
	Recall  map[string]float64 `json:"recall"`   // mean evidence recall per configuration
	Chars   map[string]float64 `json:"chars"`    // mean characters of hits added, budget configurations
	Latency locomoLatency      `json:"latency_ms"`
}

// locomoLatency is the distribution of Search calls' wall time, in ms.
type locomoLatency struct {
	Calls int     `json:"calls"`
	P50   float64 `json:"p50"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
}

// locomoAggregate averages the scores of the given categories.
func locomoAggregate(name string, categories []int, scores []locomoScore) locomoRow {
	row := locomoRow{Name: name, Recall: map[string]float64{}, Chars: map[string]float64{}}
	var (
		recall [locomoNConfigs]float64
		chars  [locomoNConfigs]float64
		lat    samples
	)
	in, leftOut := measuredIn(scores, categories)
	row.N, row.LeftOut = len(in), leftOut
	for _, s := range in {
		for i := range locomoNConfigs {
			recall[i] += s.recall[i]
			chars[i] += float64(s.chars[i])
		}
		lat = append(lat, s.latency...)
	}
	for i, name := range locomoConfigs {
		if row.N > 0 {
			row.Recall[name] = recall[i] / float64(row.N)
		}
	}
	for _, i := range locomoBudgetConfigs {
		if row.N > 0 {
			row.Chars[locomoConfigs[i]] = chars[i] / float64(row.N)
		}
	}
	row.Latency = locomoLatency{Calls: len(lat), P50: lat.pct(50), P95: lat.pct(95), P99: lat.pct(99)}
	return row
}

// scored is a question's score: its category, and whether it was left out
// (no valid evidence).
type scored interface {
	categoryOf() (category int, leftOut bool)
}

func (s locomoScore) categoryOf() (int, bool) { return s.category, s.leftOut }
func (s lossScore) categoryOf() (int, bool)   { return s.category, s.leftOut }

// measuredIn returns the scores of categories that were measured, and how
// many of those categories' questions were left out.
func measuredIn[S scored](scores []S, categories []int) (in []S, leftOut int) {
	for _, s := range scores {
		c, out := s.categoryOf()
		switch {
		case !slices.Contains(categories, c):
		case out:
			leftOut++
		default:
			in = append(in, s)
		}
	}
	return in, leftOut
}

// locomoPrint writes the report as a Markdown table.
func locomoPrint(w io.Writer, rep locomoReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "yakor bench locomo: evidence recall on LoCoMo (%d conversations, %d messages), window %d chars, search budget %d chars\n",
		rep.Conversations, rep.Messages, rep.WindowChars, rep.BudgetChars)
	fmt.Fprintf(&b, "search legs: %s\n\n", strings.Join(rep.Legs, ", "))
	b.WriteString("| category | n |")
	for _, c := range locomoConfigs {
		b.WriteString(" " + c + " |")
	}
	for _, i := range locomoBudgetConfigs {
		b.WriteString(" chars " + locomoConfigs[i] + " |")
	}
	b.WriteString(" search p50 ms | p95 ms | p99 ms |\n|---|---:|")
	b.WriteString(strings.Repeat("---:|", len(locomoConfigs)+len(locomoBudgetConfigs)+3))
	b.WriteString("\n")
	for _, r := range rep.Rows {
		fmt.Fprintf(&b, "| %s | %d |", r.Name, r.N)
		for _, c := range locomoConfigs {
			b.WriteString(locomoCell(r.N, fmt.Sprintf("%.3f", r.Recall[c])))
		}
		for _, i := range locomoBudgetConfigs {
			b.WriteString(locomoCell(r.N, fmt.Sprintf("%.0f", r.Chars[locomoConfigs[i]])))
		}
		for _, v := range []float64{r.Latency.P50, r.Latency.P95, r.Latency.P99} {
			b.WriteString(locomoCell(r.Latency.Calls, fmt.Sprintf("%.2f", v)))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\nquestions: %d, measured %d, left out %d (no valid evidence); evidence ids dropped: %d\n",
		rep.Questions, rep.Questions-rep.LeftOut, rep.LeftOut, rep.DroppedEvidence)
	fmt.Fprintf(&b, "no shared keyword: no keyword of the question (as search makes them, speakers' names left out) is a substring of its evidence's folded text\n")
	if rep.Embedded > 0 {
		fmt.Fprintf(&b, "load: %.2f s, of which embedding %d messages: %.2f s; questions: %.2f s\n", rep.LoadSeconds, rep.Embedded, rep.EmbedSeconds, rep.RunSeconds)
	} else {
		fmt.Fprintf(&b, "load: %.2f s; questions: %.2f s\n", rep.LoadSeconds, rep.RunSeconds)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// locomoCell is one table cell, a dash when there was nothing to measure.
func locomoCell(n int, v string) string {
	if n == 0 {
		return " – |"
	}
	return " " + v + " |"
}
