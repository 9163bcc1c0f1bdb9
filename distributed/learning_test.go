package distributed_test

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"testing"

	"yakor/app"
	"yakor/app/apptest"
	"yakor/history"
	"yakor/llm"
	"yakor/postgres/pgtest"
	"yakor/turn"
)

// reader is a scripted upkeep helper: a topic of each new message's first
// words, and a grade of 5 for every reply it is asked to grade, so that
// each reply is routed into long-term memory as a good example.
type reader struct{}

var (
	readMsgRe   = regexp.MustCompile(`(?m)^\[(\d+)\] (user|assistant): (.*)$`)
	readGradeRe = regexp.MustCompile(`(?m)^replies ([\d, ]+)$`)
)

func (reader) Complete(_ context.Context, req llm.Request) (llm.Result, error) {
	in := req.Messages[len(req.Messages)-1].Content
	var items, grades []string
	for _, m := range readMsgRe.FindAllStringSubmatch(in, -1) {
		w := strings.Fields(m[3])
		items = append(items, fmt.Sprintf(`{"id": %s, "topic": %q, "data": "", "data_changed": false}`, m[1], strings.Join(w[:min(3, len(w))], " ")))
	}
	if g := readGradeRe.FindStringSubmatch(in); g != nil {
		for _, id := range strings.Split(g[1], ", ") {
			grades = append(grades, fmt.Sprintf(`{"reply": %s, "score": 5, "reason": "Scripted: exact and complete.", "research_topic": ""}`, id))
		}
	}
	return llm.Result{Model: "reader-1", Text: fmt.Sprintf(`{"messages": [%s], "facts": [], "forget": [], "grades": [%s]}`,
		strings.Join(items, ", "), strings.Join(grades, ", "))}, nil
}

// teacher is a chat model whose replies are worth learning from: it
// answers each question with the board's price, in a sentence of its own.
type teacher struct{}

func (teacher) Stream(_ context.Context, req llm.Request, fn func(string) error) (llm.Result, error) {
	q := req.Messages[len(req.Messages)-1].Content
	text := "The walnut board for " + strings.TrimSuffix(q, "?") + " costs 5150 rub per sheet, delivered on Tuesdays."
	return llm.Result{Text: text, Model: "teacher-1", FinishReason: "stop"}, fn(text)
}
func (teacher) Provider() string { return "openai" }
func (teacher) Model() string    { return "teacher-1" }

// TestLearningRoutesToOneShard: replies graded good become long-term
// memory (written, merged, indexed by words and by meaning) and are
// recalled into later prompts, on Citus, with every statement of the
// service role routed to one shard.
func TestLearningRoutesToOneShard(t *testing.T) {
	rec := newStatements()
	owner, svc := pgtest.CitusService(t, pgtest.NewCitusURL(t), noFanOut, rec)
	rec.start()
	logged := newWarnings()
	s := apptest.StartLogged(t, apptest.Config(), slog.New(logged), app.WithDatabase(&app.Database{Owner: owner, Tenant: svc}),
		app.WithInlineJobs(), app.WithHelpers(app.Helpers{Upkeep: reader{}}), app.WithChatModel(teacher{}))
	th, err := s.History.CreateThread(s.Local.Context(t.Context()), s.Local, history.ThreadCreate{Title: "walnut"})
	if err != nil {
		t.Fatal(err)
	}
	sc := s.Local.WithThread(th.ID)
	ctx := sc.Context(t.Context())
	for _, q := range []string{"the kitchen table?", "the office desk?", "the bookshelf in the hall?", "the walnut kitchen table again?"} {
		if _, err := s.Engine.Send(ctx, sc, turn.Input{Content: "What does walnut cost for " + q}, func(turn.Event) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if err := s.Inline.RunPending(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := owner.QueryRow(t.Context(), `SELECT count(*) FROM experiences WHERE tenant_id = $1`, sc.TenantID).Scan(&n); err != nil || n == 0 {
		t.Fatalf("experiences written: %d, %v", n, err)
	}
	out, err := s.Engine.Send(ctx, sc, turn.Input{Content: "What does walnut cost for the kitchen table?"}, func(turn.Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	var memory int
	if err := owner.QueryRow(t.Context(), `SELECT coalesce((SELECT (l->>'chars')::int FROM jsonb_array_elements(layers) l WHERE l->>'name' = 'memory'), 0)
FROM turns WHERE tenant_id = $1 AND id = $2`, sc.TenantID, out.TurnID).Scan(&memory); err != nil {
		t.Fatal(err)
	}
	if memory == 0 {
		t.Errorf("the last turn recalled nothing of %d experiences", n)
	}
	if routed, _ := rec.explainEach(t, ctx, svc); routed == 0 {
		t.Error("no routed statement seen")
	}
	logged.none(t)
}
