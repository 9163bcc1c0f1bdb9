package bench

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"io"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"yakor"
	"yakor/account"
	"yakor/app"
	"yakor/history"
	"yakor/turn"
)

// runBenchPrompt measures the prompt's size against the turn number over a
// long conversation: real turns through the engine with every layer a
// served turn has (anchors, facts, compaction into a summary, the window,
// long-term memory, search), the offline model answering, beside what a
// client sending the whole conversation each time would send.
func runBenchPrompt(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlagSet("prompt", args, stdout, stderr)
	turns := fs.Int("turns", 2000, "turns of the conversation")
	every := fs.Int("every", 100, "a table row every this many turns")
	dataPath := fs.String("data", lossDefaultData, "locomo10.json, whose messages are the user's (in order; generated chat when it is missing or runs out)")
	pngPath := fs.String("png", "", "also draw the sizes into this PNG file")
	jsonPath := fs.String("json", "", "also write the results as JSON to this file")
	cfg, err := parseFlags(fs, args, getenv)
	if err != nil {
		return err
	}
	if *turns <= 0 || *every <= 0 {
		return errors.New("bench prompt: --turns and --every must be positive")
	}
	db, log, err := openDatabase(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer db.Close()
	msgs, source := promptMessages(*dataPath, *turns)
	r, err := benchPrompt(ctx, db, cfg, log, msgs, source, stderr)
	if err != nil {
		return err
	}
	if err := promptPrint(stdout, r, *every); err != nil {
		return err
	}
	if *pngPath != "" {
		if err := writePromptChart(*pngPath, r); err != nil {
			return fmt.Errorf("bench prompt: %w", err)
		}
	}
	if err := writeJSON(*jsonPath, r.thinned(10)); err != nil {
		return fmt.Errorf("bench prompt: %w", err)
	}
	return nil
}

// promptMessages returns n user messages and says where they come from:
// LoCoMo's, in order, when the data is there, then generated chat.
func promptMessages(dataPath string, n int) ([]string, string) {
	convs, err := locomoRead(lossResolve(dataPath))
	if err != nil {
		return lossFiller(nil, n), "generated chat"
	}
	var out []string
	for _, c := range convs {
		for _, m := range c.msgs {
			if len(out) < n {
				out = append(out, m.Content)
			}
		}
	}
	if len(out) == n {
		return out, "LoCoMo's messages in order"
	}
	return append(out, lossFiller(nil, n-len(out))...), "LoCoMo's messages in order, then generated chat"
}

// promptLayers are the parts of the prompt reported, in prompt order; the
// summary is the window's summary row, counted apart from the window.
var promptLayers = []string{turn.LayerSystem, turn.LayerFacts, turn.LayerAnchors, "summary", turn.LayerWindow, turn.LayerMemory, turn.LayerMessage, turn.LayerFound}

// promptPoint is one turn's prompt.
type promptPoint struct {
	Turn     int            `json:"turn"`
	Chars    int            `json:"prompt_chars"` // the first pass's prompt plus what searches found
	Layers   map[string]int `json:"layers"`
	Full     int            `json:"full_context_chars"` // the system prompt and every message so far
	Searches int            `json:"searches"`
}

// promptResult is the prompt benchmark's result.
type promptResult struct {
	Turns       int           `json:"turns"`
	WindowChars int           `json:"window_chars"`
	Layers      []string      `json:"layer_names"`
	Messages    string        `json:"messages"` // where the user's messages came from
	Points      []promptPoint `json:"points"`   // every turn, or every Step-th in JSON
	Step        int           `json:"points_every"`
	Seconds     float64       `json:"seconds"`
	Summaries   int           `json:"summaries"`        // summary rows at the end
	Anchors     int           `json:"anchors"`          // anchors ever set in the thread (folded ones too)
	Per1000     float64       `json:"anchors_per_1000"` // anchors set per 1,000 turns
	Episodes    int           `json:"episodes"`         // episodes the older anchors are folded into, at the end
	// SpanTurn is the oldest turn the last anchors block still names (an
	// anchor or episode set at it, its topic in the block); 0 for none.
	SpanTurn    int `json:"block_span_turn"`
	Facts       int `json:"facts"`
	Experiences int `json:"experiences"` // long-term memory entries the grades stored
}

// thinned is r with a point every step turns (and the last), for JSON.
func (r promptResult) thinned(step int) promptResult {
	var pts []promptPoint
	for _, t := range promptRows(r.Turns, step) {
		pts = append(pts, r.at(t))
	}
	r.Points, r.Step = pts, step
	return r
}

// at returns the point of turn t (1-based).
func (r promptResult) at(t int) promptPoint { return r.Points[t-1] }

// benchPrompt runs a turn for each of messages in a new thread of a new
// tenant through Yakor as app.New builds it for yakor serve from cfg (the
// offline models, async anchoring), the post-turn jobs run after each turn
// (as an idle worker would take them), and reads each turn's trace.
func benchPrompt(ctx context.Context, db *database, cfg app.Config, log *slog.Logger, messages []string, source string, stderr io.Writer) (promptResult, error) {
	start := time.Now()
	turns := len(messages)
	r := promptResult{Turns: turns, WindowChars: cfg.WindowChars, Layers: promptLayers, Messages: source, Step: 1}
	scope, err := account.NewStore(db.Owner).CreateTenantUser(ctx, "bench prompt")
	if err != nil {
		return r, err
	}
	defer deleteTenant(db.Database, scope.TenantID)
	cfg.AnchorMode = turn.AnchorAsync
	a, err := newApp(ctx, cfg, log, db.Database, app.WithLocalScope(scope), app.WithInlineJobs())
	if err != nil {
		return r, err
	}
	ctx = scope.Context(ctx)
	th, err := a.History.CreateThread(ctx, scope, history.ThreadCreate{Title: "bench prompt"})
	if err != nil {
		return r, err
	}
	scope = scope.WithThread(th.ID)
	full := 0                 // characters of the messages so far
	turnOf := map[int64]int{} // the turn of each message
	for i, msg := range messages {
		out, err := a.Engine.Send(ctx, scope, turn.Input{Content: msg}, func(turn.Event) error { return nil })
		if err != nil {
			return r, fmt.Errorf("bench prompt: turn %d: %w", i+1, err)
		}
		p, err := promptPointOf(ctx, db, a, scope, out.TurnID)
		if err != nil {
			return r, err
		}
		p.Turn = i + 1
		turnOf[out.UserMessage.ID], turnOf[out.Reply.ID] = p.Turn, p.Turn
		full += utf8.RuneCountInString(msg)
		p.Full = p.Layers[turn.LayerSystem] + full
		full += out.Reply.Chars
		r.Points = append(r.Points, p)
		if err := a.Inline.RunPending(ctx); err != nil {
			return r, fmt.Errorf("bench prompt: jobs after turn %d: %w", i+1, err)
		}
		if (i+1)%250 == 0 {
			fmt.Fprintf(stderr, "bench prompt: %d of %d turns (%.0f s): prompt %d chars, full context %d\n", i+1, turns, time.Since(start).Seconds(), p.Chars, p.Full)
		}
	}
	err = db.Owner.QueryRow(ctx, `SELECT
    (SELECT count(*) FROM messages WHERE tenant_id = $1 AND thread_id = $2 AND kind = 'summary'),
    (SELECT count(*) FROM microgoals WHERE tenant_id = $1 AND thread_id = $2),
    (SELECT count(*) FROM facts WHERE tenant_id = $1 AND valid_to IS NULL),
    (SELECT count(*) FROM experiences WHERE tenant_id = $1)`, scope.TenantID, scope.ThreadID).
		Scan(&r.Summaries, &r.Anchors, &r.Facts, &r.Experiences)
	if err != nil {
		return r, err
	}
	r.Per1000 = 1000 * float64(r.Anchors) / float64(max(turns, 1))
	if r.Episodes, r.SpanTurn, err = blockSpan(ctx, a, scope, turnOf); err != nil {
		return r, err
	}
	r.Seconds = time.Since(start).Seconds()
	return r, nil
}

// blockSpan reads scope's thread's anchors block as the next prompt would
// have it and returns how many episodes the thread's anchors are folded
// into and the oldest turn (turnOf) whose anchor the block names: an
// anchor or episode set at that turn's message whose topic the block
// shows.
func blockSpan(ctx context.Context, a *app.App, scope yakor.Scope, turnOf map[int64]int) (episodes, oldest int, err error) {
	l, err := a.Anchors.List(ctx, scope)
	if err != nil {
		return 0, 0, err
	}
	block, _, err := a.Anchors.Block(ctx, scope, "en")
	if err != nil {
		return 0, 0, err
	}
	for _, an := range l.Anchors {
		if an.Episode {
			episodes++
		}
		t, ok := turnOf[an.MessageID]
		if ok && strings.Contains(block, an.Topic) && (oldest == 0 || t < oldest) {
			oldest = t
		}
	}
	return episodes, oldest, nil
}

// promptPointOf reads a turn's prompt from its trace: its characters by
// layer, the window's summary row counted apart from the window.
func promptPointOf(ctx context.Context, db *database, a *app.App, scope yakor.Scope, turnID string) (promptPoint, error) {
	tr, err := a.Engine.FindTrace(ctx, scope, turnID)
	if err != nil {
		return promptPoint{}, err
	}
	p := promptPoint{Chars: tr.PromptChars, Layers: map[string]int{}, Searches: len(tr.Searches)}
	for _, l := range tr.Layers {
		p.Layers[l.Name] += l.Chars
		if l.Name == turn.LayerWindow {
			summary, err := summaryChars(ctx, db, scope, l.MessageIDs)
			if err != nil {
				return p, err
			}
			p.Layers["summary"] += summary
			p.Layers[turn.LayerWindow] -= summary
		}
	}
	return p, nil
}

// summaryChars is the characters of the summary rows among ids.
func summaryChars(ctx context.Context, db *database, scope yakor.Scope, ids []int64) (int, error) {
	var n int
	err := db.Owner.QueryRow(ctx, `SELECT coalesce(sum(chars), 0) FROM messages WHERE tenant_id = $1 AND id = ANY($2) AND kind = 'summary'`,
		scope.TenantID, ids).Scan(&n)
	return n, err
}

// promptPrint writes the table: a row every every turns.
func promptPrint(w io.Writer, r promptResult, every int) error {
	last := r.at(r.Turns)
	fmt.Fprintf(w, "yakor bench prompt: prompt size against turn number, %d turns (%s), offline model, window %d chars; %.0f s\n",
		r.Turns, r.Messages, r.WindowChars, r.Seconds)
	peak := promptPoint{}
	for _, p := range r.Points {
		if p.Chars > peak.Chars {
			peak = p
		}
	}
	fmt.Fprintf(w, "at the end: %d summary rows, %d anchors, %d current facts, %d long-term memory entries; turn %d: prompt %d chars, full context %d (%.1f×); largest prompt %d chars (turn %d)\n",
		r.Summaries, r.Anchors, r.Facts, r.Experiences, r.Turns, last.Chars, last.Full, float64(last.Full)/float64(max(1, last.Chars)), peak.Chars, peak.Turn)
	fmt.Fprintf(w, "anchors: %.1f set per 1,000 turns, folded at the end into %d episodes besides the newest; the last block names topics back to turn %d (%.1f%% into the conversation)\n\n",
		r.Per1000, r.Episodes, r.SpanTurn, 100*float64(max(r.SpanTurn-1, 0))/float64(max(r.Turns, 1)))
	_, err := io.WriteString(w, promptTable(r, every))
	return err
}

// promptTable is the Markdown table of the prompt's size every every
// turns (and at the first and the last).
func promptTable(r promptResult, every int) string {
	var b []byte
	b = fmt.Appendf(b, "| turn | prompt chars |")
	for _, l := range promptLayers {
		b = fmt.Appendf(b, " %s |", l)
	}
	b = fmt.Appendf(b, " full context chars | full ÷ prompt |\n|---:|---:|")
	for range promptLayers {
		b = append(b, "---:|"...)
	}
	b = append(b, "---:|---:|\n"...)
	for _, t := range promptRows(r.Turns, every) {
		p := r.at(t)
		b = fmt.Appendf(b, "| %d | %d |", t, p.Chars)
		for _, l := range promptLayers {
			b = fmt.Appendf(b, " %d |", p.Layers[l])
		}
		b = fmt.Appendf(b, " %d | %.1f |\n", p.Full, float64(p.Full)/float64(max(1, p.Chars)))
	}
	return string(b)
}

// promptRows are the turns a table shows: the first, every every-th and the
// last.
func promptRows(turns, every int) []int {
	rows := []int{1}
	for t := every; t <= turns; t += every {
		if t > 1 {
			rows = append(rows, t)
		}
	}
	if rows[len(rows)-1] != turns {
		rows = append(rows, turns)
	}
	return rows
}

// writePromptChart draws r into a PNG: Yakor's prompt against the full
// context, then Yakor's prompt layer by layer.
func writePromptChart(path string, r promptResult) error {
	xs := make([]float64, len(r.Points))
	prompt := make([]float64, len(r.Points))
	full := make([]float64, len(r.Points))
	for i, p := range r.Points {
		xs[i], prompt[i], full[i] = float64(p.Turn), float64(p.Chars), float64(p.Full)
	}
	var bands []chartSeries
	for i, l := range promptLayers {
		ys := make([]float64, len(r.Points))
		for j, p := range r.Points {
			ys[j] = float64(p.Layers[l])
		}
		bands = append(bands, chartSeries{name: l, color: chartColors[i%len(chartColors)], ys: ys})
	}
	return writeChart(path, 1200, 460, []chartPanel{
		{
			title:  fmt.Sprintf("Prompt size per turn over a %s-turn conversation: Yakor against sending the whole conversation", groupThousands(r.Turns)),
			xLabel: "turn", yLabel: "characters",
			xs: xs,
			lines: []chartSeries{
				{name: "full context (system prompt + every message so far)", color: color.RGBA{0xe1, 0x57, 0x59, 0xff}, ys: full},
				{name: "Yakor's prompt (all layers, search hits included)", color: color.RGBA{0x4e, 0x79, 0xa7, 0xff}, ys: prompt},
			},
		},
		{
			title:  fmt.Sprintf("Yakor's prompt by layer (window %s chars)", groupThousands(r.WindowChars)),
			xLabel: "turn", yLabel: "characters",
			xs: xs, stacked: bands,
		},
	})
}
