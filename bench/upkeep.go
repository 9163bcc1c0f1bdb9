package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"yakor/account"
	"yakor/app"
	"yakor/history"
	"yakor/turn"
)

// runBenchUpkeep measures what memory upkeep costs next to the
// conversation: one thread of long turns through Yakor as app.New builds
// it (anchors, facts, grading, compaction, embeddings), its post-turn jobs
// run after each turn, with scripted chat, helper and embedding models
// that count their calls and the characters sent to them. It runs the
// conversation twice: with the turn's one upkeep call, and with each job
// asking the helper itself (as before the upkeep job), side by side.
func runBenchUpkeep(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlagSet("upkeep", args, stdout, stderr)
	turns := fs.Int("turns", 200, "turns of the conversation")
	chars := fs.Int("chars", upkeepChars, "characters of each user message and each reply, about")
	jsonPath := fs.String("json", "", "also write the results as JSON to this file")
	cfg, err := parseFlags(fs, args, getenv)
	if err != nil {
		return err
	}
	if *turns <= 0 || *chars <= 0 {
		return errors.New("bench upkeep: --turns and --chars must be positive")
	}
	db, log, err := openDatabase(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer db.Close()
	msgs := upkeepMessages(*turns, *chars)
	var rs []upkeepResult
	for _, mode := range []string{upkeepOneCall, upkeepSeparate} {
		r, err := benchUpkeep(ctx, db, cfg, log, mode, msgs, *chars)
		if err != nil {
			return err
		}
		rs = append(rs, r)
	}
	fmt.Fprintf(stdout, "yakor bench upkeep: one thread, %d turns of about %d characters each way, scripted chat, helper and embedding models, post-turn jobs after each turn\n\n", *turns, *chars)
	upkeepPrint(stdout, rs)
	return writeJSON(*jsonPath, rs)
}

// The modes of the upkeep benchmark.
const (
	upkeepOneCall  = "one call" // the upkeep job: one helper call per turn
	upkeepSeparate = "separate" // anchoring, facts and grading each ask
)

// upkeepResult is one mode's run: the calls and characters of each model
// role, and of each kind of helper call.
type upkeepResult struct {
	Mode         string         `json:"mode"`
	Turns        int            `json:"turns"`
	ChatCalls    int            `json:"chat_calls"`
	ChatChars    int            `json:"chat_chars"`
	HelperCalls  int            `json:"helper_calls"`
	HelperChars  int            `json:"helper_chars"`
	HelperByKind map[string]int `json:"helper_calls_by_kind"`
	EmbedCalls   int            `json:"embed_calls"`
	EmbedChars   int            `json:"embed_chars"`
	Anchors      int            `json:"anchors"`
	Facts        int            `json:"facts"`
	Grades       int            `json:"grades"`
	Seconds      float64        `json:"seconds"`
}

// CallsPerTurn is the helper's calls per turn.
func (r upkeepResult) CallsPerTurn() float64 { return float64(r.HelperCalls) / float64(r.Turns) }

// CharRatio is the helper's characters per character sent to the chat
// model.
func (r upkeepResult) CharRatio() float64 {
	return float64(r.HelperChars) / float64(max(1, r.ChatChars))
}

// benchUpkeep runs msgs as the turns of a new thread of a new tenant in
// mode and counts what each model was sent.
func benchUpkeep(ctx context.Context, db *database, cfg app.Config, log *slog.Logger, mode string, msgs []string, chars int) (upkeepResult, error) {
	start := time.Now()
	r := upkeepResult{Mode: mode, Turns: len(msgs)}
	scope, err := account.NewStore(db.Owner).CreateTenantUser(ctx, "bench upkeep")
	if err != nil {
		return r, err
	}
	defer deleteTenant(db.Database, scope.TenantID)
	m := newScriptedModels(chars)
	helpers := app.Helpers{Anchors: m.helper, Grader: m.helper, Facts: m.helper, Compaction: m.helper, Research: m.helper}
	if mode == upkeepOneCall {
		helpers.Upkeep = m.helper
	}
	cfg.AnchorMode, cfg.Compaction, cfg.Facts, cfg.Grading, cfg.SearchSemantic = turn.AnchorAsync, true, true, true, true
	a, err := newApp(ctx, cfg, log, db.Database, app.WithLocalScope(scope), app.WithInlineJobs(),
		app.WithChatModel(m.chat), app.WithHelpers(helpers), app.WithEmbedder(m.embed))
	if err != nil {
		return r, err
	}
	ctx = scope.Context(ctx)
	th, err := a.History.CreateThread(ctx, scope, history.ThreadCreate{Title: "bench upkeep"})
	if err != nil {
		return r, err
	}
	scope = scope.WithThread(th.ID)
	for i, msg := range msgs {
		if _, err := a.Engine.Send(ctx, scope, turn.Input{Content: msg}, func(turn.Event) error { return nil }); err != nil {
			return r, fmt.Errorf("bench upkeep: turn %d: %w", i+1, err)
		}
		if err := a.Inline.RunPending(ctx); err != nil {
			return r, fmt.Errorf("bench upkeep: jobs after turn %d: %w", i+1, err)
		}
	}
	m.fill(&r)
	err = db.Owner.QueryRow(ctx, `SELECT
    (SELECT count(*) FROM microgoals WHERE tenant_id = $1 AND thread_id = $2),
    (SELECT count(*) FROM facts WHERE tenant_id = $1 AND valid_to IS NULL),
    (SELECT count(*) FROM grades WHERE tenant_id = $1)`, scope.TenantID, scope.ThreadID).
		Scan(&r.Anchors, &r.Facts, &r.Grades)
	r.Seconds = time.Since(start).Seconds()
	return r, err
}

// upkeepMessages are n user messages of about chars characters: LoCoMo's
// messages (or generated chat) run together, a price or a name now and
// then, so that anchors and facts have something to keep.
func upkeepMessages(n, chars int) []string {
	lines, _ := promptMessages(lossDefaultData, n*max(1, chars/60))
	out := make([]string, 0, n)
	var b strings.Builder
	for i := 0; len(out) < n; i++ {
		b.WriteString(lines[i%len(lines)])
		b.WriteString(" ")
		if b.Len() < chars {
			continue
		}
		switch len(out) % 10 {
		case 3:
			b.WriteString(fmt.Sprintf("The oak board now costs %d rub per sheet.", 3400+len(out)*10))
		case 7:
			b.WriteString(fmt.Sprintf("By the way, my colleague's name is Anna %d.", len(out)))
		}
		out = append(out, strings.TrimSpace(b.String()))
		b.Reset()
	}
	return out
}

// upkeepPrint writes the modes side by side.
func upkeepPrint(w io.Writer, rs []upkeepResult) {
	fmt.Fprintln(w, "| mode | turns | chat calls | chat chars | helper calls | per turn | helper calls by kind | helper chars | helper ÷ chat chars | embedding calls | embedding chars | anchors | facts | grades | seconds |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rs {
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %.2f | %s | %d | %.2f | %d | %d | %d | %d | %d | %.0f |\n",
			r.Mode, r.Turns, r.ChatCalls, r.ChatChars, r.HelperCalls, r.CallsPerTurn(), kinds(r.HelperByKind), r.HelperChars, r.CharRatio(),
			r.EmbedCalls, r.EmbedChars, r.Anchors, r.Facts, r.Grades, r.Seconds)
	}
	if len(rs) == 2 {
		fmt.Fprintf(w, "\nOne call against separate calls: helper calls ×%.2f, helper characters ×%.2f.\n",
			float64(rs[0].HelperCalls)/float64(max(1, rs[1].HelperCalls)), float64(rs[0].HelperChars)/float64(max(1, rs[1].HelperChars)))
	}
}

// upkeepChars is the length of the upkeep section's messages.
const upkeepChars = 1000

// allUpkeep measures memory upkeep's cost next to the conversation.
func allUpkeep(ctx context.Context, e *allEnv) (allPart, error) {
	msgs := upkeepMessages(e.scale.UpkeepTurns, upkeepChars)
	var rs []upkeepResult
	for _, mode := range []string{upkeepOneCall, upkeepSeparate} {
		r, err := benchUpkeep(ctx, e.db, e.cfg, e.log, mode, msgs, upkeepChars)
		if err != nil {
			return allPart{}, err
		}
		rs = append(rs, r)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "One thread of %d turns of about %d characters each way through the engine with every layer on (anchors, facts, grading, compaction, message embeddings), the post-turn jobs run after each turn, with scripted chat, helper and embedding models that answer at once in the shape asked and count the calls and characters sent to them. "+
		"`one call` is the upkeep job (a turn's topics, facts and grade from one helper call); `separate` is each job asking the helper itself, as before it.\n\n", len(msgs), upkeepChars)
	var t strings.Builder
	upkeepPrint(&t, rs)
	b.WriteString(t.String())
	one := rs[0]
	return allPart{
		Figures: []allFigure{{Figure: "Memory upkeep per turn",
			Value:  fmt.Sprintf("%.2f helper calls, helper characters %.2f× the chat's", one.CallsPerTurn(), one.CharRatio()),
			Detail: fmt.Sprintf("%d turns, scripted models; separate calls: %.2f and %.2f×", one.Turns, rs[1].CallsPerTurn(), rs[1].CharRatio())}},
		Body: b.String(), Result: rs,
		Reproduce: []string{fmt.Sprintf("bin/yakor bench upkeep --turns %d", len(msgs))},
	}, nil
}
