package distributed_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"

	"yakor/app"
	"yakor/app/apptest"
	"yakor/history"
	"yakor/postgres/pgtest"
	"yakor/search"
	"yakor/turn"
)

// noFanOut makes every statement of the service role that would run as
// more than one task (not routed to one shard) an error.
var noFanOut = map[string]string{"citus.multi_task_query_log_level": "error"}

// TestTurnAndUpkeepRouteToOneShard runs a conversation through the
// engine, with every layer on and its upkeep (anchors, facts, grading,
// compaction, message embeddings) after each turn, on a service role whose
// statements fail unless Citus routes them to one shard: the conversation
// going through whole is the test that each of them did. Then each distinct
// statement it sent is EXPLAINed with the arguments it ran with, and every
// Citus plan among them must be one task.
func TestTurnAndUpkeepRouteToOneShard(t *testing.T) {
	rec := newStatements()
	owner, svc := pgtest.CitusService(t, pgtest.NewCitusURL(t), noFanOut, rec)
	cfg := apptest.Config()
	cfg.Compaction = true
	cfg.WindowChars = 1500
	cfg.SearchSemantic = true
	logged := newWarnings()
	s := apptest.StartLogged(t, cfg, slog.New(logged), app.WithDatabase(&app.Database{Owner: owner, Tenant: svc}), app.WithInlineJobs())
	th, err := s.History.CreateThread(s.Local.Context(t.Context()), s.Local, history.ThreadCreate{Title: "prices"})
	if err != nil {
		t.Fatal(err)
	}
	scope := s.Local.WithThread(th.ID)
	ctx := scope.Context(t.Context())

	// The guard works: a statement the policy alone scopes fans out.
	if _, err := svc.Exec(ctx, `SELECT count(*) FROM messages`); err == nil || !strings.Contains(err.Error(), "multi-task") {
		t.Fatalf("an unscoped count as the service role: %v, want the multi-task error", err)
	}
	rec.start()

	lines := []string{
		"My name is Anna and I run a furniture workshop.",
		"Price list: oak board 3400, birch board 2100, pine board 1250.",
		"We use PostgreSQL 15 for the orders; our budget is 48,000 EUR.",
	}
	for i := range 16 {
		lines = append(lines, fmt.Sprintf("Let us talk about the delivery schedule for week %d: the van leaves the workshop at nine, "+
			"stops at the sawmill for the birch and the pine, unloads at the warehouse on Lenin street before noon, "+
			"and the warehouse closes at six, so anything ordered after four goes out the next morning.", i+1))
	}
	lines = append(lines, "What does an oak board cost?")
	var last turn.Outcome
	searches := 0
	count := func(ev turn.Event) error {
		if ev.Search != nil {
			searches++
		}
		return nil
	}
	for _, text := range lines {
		last, err = s.Engine.Send(ctx, scope, turn.Input{Content: text}, count)
		if err != nil {
			t.Fatalf("turn %q: %v", text, err)
		}
		if err := s.Inline.RunPending(t.Context()); err != nil {
			t.Fatalf("upkeep after %q: %v", text, err)
		}
	}
	// The offline model answers from what the prompt shows; the search a
	// model asks for (SEARCH_HISTORY) runs on the same searcher.
	res, err := s.Searcher.Search(ctx, scope, "birch board price", search.Options{})
	if err != nil {
		t.Fatalf("search: %v", err)
	}
	if !slices.ContainsFunc(res.Hits, func(h search.Hit) bool { return strings.Contains(h.Content, "2100") }) {
		t.Errorf("the search for the birch board found %d hits without its price", len(res.Hits))
	}
	t.Logf("%d searches in the turns; the search found %d hits", searches, len(res.Hits))
	foldEpisodes(t, s, ctx)
	routed, other := rec.explainEach(t, ctx, svc)
	t.Logf("EXPLAIN of each of the %d statements the service role sent: %d planned by Citus, each one task; %d not distributed (Yakor's functions, whose own statements the guard checked)", routed+other, routed, other)
	if !rec.saw("SET episode = true") {
		t.Error("no fold of anchors into an episode was traced: the thread of thirty topics did not fold")
	}
	if routed < 20 {
		t.Errorf("only %d distinct routed statements seen: the tracer missed the conversation's", routed)
	}
	if !strings.Contains(last.Reply.Content, "3400") {
		t.Errorf("the last reply does not give the price: %q", last.Reply.Content)
	}
	counts := map[string]string{
		"anchors":    `SELECT count(*) FROM microgoals WHERE tenant_id = $1 AND thread_id = $2`,
		"facts":      `SELECT count(*) FROM facts WHERE tenant_id = $1 AND (thread_id = $2 OR thread_id IS NULL)`,
		"summaries":  `SELECT count(*) FROM messages WHERE tenant_id = $1 AND thread_id = $2 AND kind = 'summary'`,
		"embeddings": `SELECT count(*) FROM message_embeddings WHERE tenant_id = $1 AND thread_id = $2`,
	}
	for what, q := range counts {
		var n int
		if err := owner.QueryRow(t.Context(), q, scope.TenantID, scope.ThreadID).Scan(&n); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if n == 0 {
			t.Errorf("no %s were written", what)
		}
	}
	logged.none(t)
}

// foldEpisodes anchors a second thread of thirty topics, each with its
// figure, so that its oldest anchors fold into episodes.
func foldEpisodes(t *testing.T, s *apptest.Server, ctx context.Context) {
	t.Helper()
	th, err := s.History.CreateThread(ctx, s.Local, history.ThreadCreate{Title: "thirty topics"})
	if err != nil {
		t.Fatal(err)
	}
	scope := s.Local.WithThread(th.ID)
	// A long task conversation's topics, one a line (shared with the
	// anchors tests).
	raw, err := os.ReadFile("../anchors/testdata/thirty_topics.txt")
	if err != nil {
		t.Fatal(err)
	}
	topics := strings.Split(strings.TrimSpace(string(raw)), "\n")
	var last int64
	for i, topic := range topics {
		m, _, err := s.History.Append(ctx, scope, history.NewMessage{Role: "user", Content: fmt.Sprintf("%s — %d EUR.", topic, 1000+10*i)})
		if err != nil {
			t.Fatal(err)
		}
		last = m.ID
	}
	if _, err := s.Anchors.Apply(ctx, scope, last); err != nil {
		t.Fatalf("anchoring thirty topics: %v", err)
	}
}
