package bench

// The tables of yakor bench locomo-loss.

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// lossRow is one row of the tables: mean shares of the questions'
// evidence messages.
type lossRow struct {
	Name    string `json:"name"`
	N       int    `json:"n"`
	LeftOut int    `json:"left_out"`
	// First: each evidence message counted at the first layer that holds
	// it (they add up to Reachable); Alone: held by each layer.
	First         map[string]float64 `json:"first"`
	Alone         map[string]float64 `json:"alone"`
	Reachable     float64            `json:"reachable"`
	WithoutSearch float64            `json:"reachable_without_search"`
	AllEvidence   float64            `json:"all_evidence_reachable"` // share of questions with every evidence message reachable
	// The turn's search: SEARCH_HISTORY as turn.Engine runs it, before
	// the window's first message.
	TurnSearch    float64 `json:"turn_search"`
	TurnReachable float64 `json:"turn_reachable"`
	// Reachable after compaction had search left the summary rows out (the
	// search of the same messages without them), and the questions that
	// would still lose evidence then.
	ReachableMessagesSearch float64 `json:"reachable_messages_search"`
	LostMessagesSearch      int     `json:"lost_messages_search"`
	// Before compaction.
	BeforeWindow        float64 `json:"before_window"`
	BeforeSearch        float64 `json:"before_search"`
	BeforeReachable     float64 `json:"before_reachable"`
	BeforeTurnSearch    float64 `json:"before_turn_search"`
	BeforeTurnReachable float64 `json:"before_turn_reachable"`
	// Questions whose search after compaction returned summary rows, and
	// the mean characters of those rows in such a question's hits.
	SummaryHits      int     `json:"summary_search_hits"`
	SummaryHitsChars float64 `json:"summary_search_hit_chars"`
	Lost             int     `json:"lost"` // questions with evidence reachable before and not after
}

func lossAggregate(name string, categories []int, scores []lossScore) lossRow {
	row := lossRow{Name: name, First: map[string]float64{}, Alone: map[string]float64{}}
	var first, alone [lossNLayers]float64
	summaryChars := 0
	in, leftOut := measuredIn(scores, categories)
	row.N, row.LeftOut = len(in), leftOut
	for _, s := range in {
		for l := range lossNLayers {
			first[l] += s.first[l]
			alone[l] += s.alone[l]
		}
		row.Reachable += s.reachable
		row.WithoutSearch += s.noSearch
		row.AllEvidence += s.all
		row.TurnSearch += s.turnSearch
		row.TurnReachable += s.turnReachable
		row.ReachableMessagesSearch += s.msgSearchReachable
		if s.msgSearchLost {
			row.LostMessagesSearch++
		}
		row.BeforeWindow += s.beforeWindow
		row.BeforeSearch += s.beforeSearch
		row.BeforeReachable += s.beforeReachable
		row.BeforeTurnSearch += s.beforeTurnSearch
		row.BeforeTurnReachable += s.beforeTurnReachable
		if s.summaryHits > 0 {
			row.SummaryHits++
			summaryChars += s.summaryChars
		}
		if s.lost {
			row.Lost++
		}
	}
	if row.SummaryHits > 0 {
		row.SummaryHitsChars = float64(summaryChars) / float64(row.SummaryHits)
	}
	if row.N == 0 {
		return row
	}
	n := float64(row.N)
	for l, name := range lossLayerNames {
		row.First[name], row.Alone[name] = first[l]/n, alone[l]/n
	}
	for _, v := range []*float64{&row.Reachable, &row.WithoutSearch, &row.AllEvidence, &row.TurnSearch, &row.TurnReachable, &row.ReachableMessagesSearch,
		&row.BeforeWindow, &row.BeforeSearch, &row.BeforeReachable, &row.BeforeTurnSearch, &row.BeforeTurnReachable} {
		*v /= n
	}
	return row
}

// lossThreadStats describes one thread at its end.
type lossThreadStats struct {
	ID                string  `json:"id"`
	Messages          int     `json:"messages"`
	Summaries         int     `json:"summaries"`          // summary rows written
	SummaryRowsChars  int     `json:"summary_rows_chars"` // of all of them
	SummaryChars      int     `json:"summary_chars"`      // of the newest
	SummaryItems      int     `json:"summary_items"`      // its resolved and pending items
	Facts             int     `json:"facts"`              // current facts the thread sees
	FactsInBlock      int     `json:"facts_in_block"`
	FactsChars        int     `json:"facts_chars"`
	Anchors           int     `json:"anchors"`
	AnchorsChars      int     `json:"anchors_chars"`
	WindowMessages    int     `json:"window_messages"` // verbatim, the first exchange included
	WindowChars       int     `json:"window_chars"`
	SummarySearchHits int     `json:"summary_search_hits"` // questions whose search returned summary rows
	TurnSearchEmpty   int     `json:"turn_search_empty"`   // questions the whole thread's search finds messages for, and the turn's none
	WindowFirst       string  `json:"window_first"`        // what the window starts with: message, summary or none
	ReachableBefore   float64 `json:"reachable_before"`
	ReachableAfter    float64 `json:"reachable_after"`
	LoadSeconds       float64 `json:"load_seconds"`
	PipelineSeconds   float64 `json:"pipeline_seconds"`
	MeasureSeconds    float64 `json:"measure_seconds"`
}

// lossReport is the benchmark's result, printed and written as JSON.
type lossReport struct {
	Data          string             `json:"data"`
	WindowChars   int                `json:"window_chars"`
	Step          int                `json:"step"`
	SearchBudget  int                `json:"search_budget"`
	SummaryChars  int                `json:"summary_chars"`
	FactBudget    int                `json:"fact_budget"`
	AnchorBudget  int                `json:"anchor_budget"`
	Helper        string             `json:"helper"`
	Layers        []string           `json:"layers"`
	Conversations int                `json:"conversations"`
	Messages      int                `json:"messages"`
	Questions     int                `json:"questions"` // of categories 1–4, measured
	LeftOut       int                `json:"left_out"`
	Rows          []lossRow          `json:"rows"`
	Chance        map[string]float64 `json:"chance,omitempty"`
	Lost          []lossLost         `json:"lost"`
	Threads       []lossThreadStats  `json:"threads"`
	Probes        []lossProbe        `json:"probes"`
	ProbeThread   lossThreadStats    `json:"probe_thread"`
	Seconds       struct {
		Load          float64 `json:"load"`
		Pipeline      float64 `json:"pipeline"`
		Measure       float64 `json:"measure"`
		Conversations float64 `json:"conversations"`
		Probes        float64 `json:"probes"`
	} `json:"seconds"`
}

// lossPrint writes the report as Markdown tables.
func lossPrint(w io.Writer, rep lossReport) error {
	var b strings.Builder
	step := fmt.Sprintf("%d messages at a time", rep.Step)
	if rep.Step == 0 {
		step = "each conversation at once"
	}
	fmt.Fprintf(&b, "yakor bench locomo-loss: LoCoMo evidence reachable after compaction (%d conversations, %d messages, %d questions of categories 1–4)\n",
		rep.Conversations, rep.Messages, rep.Questions)
	fmt.Fprintf(&b, "threads grown %s, after each step anchors, facts, compaction (%s helper); window %d chars, summary %d, facts block %d, anchors block %d, search budget %d\n\n",
		step, rep.Helper, rep.WindowChars, rep.SummaryChars, rep.FactBudget, rep.AnchorBudget, rep.SearchBudget)
	lossLayerTable(&b, rep.Rows, "After compaction, each evidence message counted at the first layer that holds it:", []string{"reachable", "without search", "all evidence"},
		func(r lossRow) (map[string]float64, []float64) {
			return r.First, []float64{r.Reachable, r.WithoutSearch, r.AllEvidence}
		})
	lossLayerTable(&b, rep.Rows, "\nEach layer alone after compaction; the turn's search is SEARCH_HISTORY as a turn runs it (the engine's preview of the question: the window giving way to the prompt budget, the search before what is left of it, in the room left):", []string{"turn's search"},
		func(r lossRow) (map[string]float64, []float64) { return r.Alone, []float64{r.TurnSearch} })
	lossBeforeAfter(&b, rep)
	lossThreadsTable(&b, rep)
	lossProbesTable(&b, rep)
	fmt.Fprintf(&b, "\nload %.1f s; pipeline %.1f s; questions %.1f s; probes %.1f s\n",
		rep.Seconds.Load, rep.Seconds.Pipeline, rep.Seconds.Measure, rep.Seconds.Probes)
	_, err := io.WriteString(w, b.String())
	return err
}

// lossPct is a share as a table cell, a dash when nothing was measured.
func lossPct(n int, v float64) string { return locomoCell(n, fmt.Sprintf("%.1f%%", 100*v)) }

// lossLayerTable writes a table of rows: a column per layer, then the
// columns named tail; cells gives a row's layers' shares and its tail's.
func lossLayerTable(b *strings.Builder, rows []lossRow, title string, tail []string, cells func(lossRow) (map[string]float64, []float64)) {
	b.WriteString(title + "\n\n| category | n |")
	for _, l := range lossLayerNames {
		b.WriteString(" " + l + " |")
	}
	b.WriteString(" " + strings.Join(tail, " | ") + " |\n|---|---:|" + strings.Repeat("---:|", lossNLayers+len(tail)) + "\n")
	for _, r := range rows {
		fmt.Fprintf(b, "| %s | %d |", r.Name, r.N)
		layers, rest := cells(r)
		for _, l := range lossLayerNames {
			b.WriteString(lossPct(r.N, layers[l]))
		}
		for _, v := range rest {
			b.WriteString(lossPct(r.N, v))
		}
		b.WriteString("\n")
	}
}

// lossBeforeAfter writes the table before and after compaction, and the verdict.
func lossBeforeAfter(b *strings.Builder, rep lossReport) {
	b.WriteString("\nBefore compaction (the conversation imported into a second thread without the pipeline: window and search) and after; reachable with the whole thread's search, and with the turn's:\n\n")
	b.WriteString("| category | n | before: window | before: search | before: reachable | after: reachable | lost | after, search without summary rows | lost | before: turn's search | before: reachable (turn) | after: reachable (turn) | summary rows among search hits |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rep.Rows {
		fmt.Fprintf(b, "| %s | %d |", r.Name, r.N)
		b.WriteString(lossPct(r.N, r.BeforeWindow) + lossPct(r.N, r.BeforeSearch) + lossPct(r.N, r.BeforeReachable) + lossPct(r.N, r.Reachable))
		fmt.Fprintf(b, " %d |", r.Lost)
		b.WriteString(lossPct(r.N, r.ReachableMessagesSearch))
		fmt.Fprintf(b, " %d |", r.LostMessagesSearch)
		b.WriteString(lossPct(r.N, r.BeforeTurnSearch) + lossPct(r.N, r.BeforeTurnReachable) + lossPct(r.N, r.TurnReachable))
		fmt.Fprintf(b, " %d of %d, %.0f chars |\n", r.SummaryHits, r.N, r.SummaryHitsChars)
	}
	if overall := rep.Rows[len(rep.Rows)-1]; overall.N > 0 {
		verdict := "nothing lost"
		if overall.Reachable < overall.BeforeReachable {
			verdict = "EVIDENCE LOST"
		}
		fmt.Fprintf(b, "\nreachable, categories 1–4: before compaction %.1f%%, after %.1f%% (%s; %d questions lost some evidence); without search %.1f%%; with the turn's search %.1f%% before, %.1f%% after\n",
			100*overall.BeforeReachable, 100*overall.Reachable, verdict, overall.Lost, 100*overall.WithoutSearch, 100*overall.BeforeTurnReachable, 100*overall.TurnReachable)
	}
	b.WriteString("a text layer holds an evidence message when one of its items (a summary or facts line, an anchor's topic or data fragment) has one of its numbers (2+ digits), or half of its keywords (search's stems, speakers' names left out) starting words\n")
	if len(rep.Chance) > 0 {
		fmt.Fprintf(b, "chance (the evidence of the next conversation tested against each one's layers): summary %.1f%%, facts %.1f%%, anchors %.1f%%\n",
			100*rep.Chance["summary"], 100*rep.Chance["facts"], 100*rep.Chance["anchors"])
	}
}

// lossThreadsTable writes a row per thread, the probe thread last.
func lossThreadsTable(b *strings.Builder, rep lossReport) {
	b.WriteString("\n| thread | messages | summaries | summary chars (items) | facts in block / current | facts chars | anchors | anchors chars | window msgs | window starts with | turn's search finds nothing | reachable before | after |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|\n")
	for _, t := range append(slices.Clone(rep.Threads), rep.ProbeThread) {
		before, after := fmt.Sprintf("%.1f%%", 100*t.ReachableBefore), fmt.Sprintf("%.1f%%", 100*t.ReachableAfter)
		empty := fmt.Sprint(t.TurnSearchEmpty)
		if t.ID == "probes" {
			before, after, empty = "–", "–", "–"
		}
		fmt.Fprintf(b, "| %s | %d | %d | %d (%d) | %d / %d | %d | %d | %d | %d | %s | %s | %s | %s |\n", t.ID, t.Messages, t.Summaries, t.SummaryChars, t.SummaryItems,
			t.FactsInBlock, t.Facts, t.FactsChars, t.Anchors, t.AnchorsChars, t.WindowMessages, t.WindowFirst, empty, before, after)
	}
}

// lossProbesTable writes a row per planted fact.
func lossProbesTable(b *strings.Builder, rep lossReport) {
	fmt.Fprintf(b, "\nProbes: planted after the first exchange of a %d-message thread, looked for in its last prompt (search not counted):\n\n", rep.ProbeThread.Messages)
	b.WriteString("| probe | planted | value | reachable | first layer | layers holding it | search finds it |\n|---|---|---|---|---|---|---|\n")
	for _, pr := range rep.Probes {
		yes := map[bool]string{true: "yes", false: "NO"}
		layer := pr.Layer
		if layer == "" {
			layer = "–"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", pr.Name, pr.Message, pr.Value, yes[pr.Reached], layer,
			strings.Join(pr.Layers, ", "), map[bool]string{true: "yes", false: "no"}[pr.Search])
	}
}
