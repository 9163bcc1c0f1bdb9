package sufler_test

import (
	"context"
	"sync"
	"testing"

	"yakor"
	"yakor/account"
	"yakor/facts"
	"yakor/history"
	"yakor/llm"
	"yakor/mnemos"
	"yakor/postgres/pgtest"
	"yakor/sufler"
	"yakor/turn"
)

// unsureModel is a chat model that never knows: its reply is no one's
// quote (as the offline model's is), so it is graded and routed.
type unsureModel struct{}

func (unsureModel) Stream(_ context.Context, _ llm.Request, fn func(string) error) (llm.Result, error) {
	const text = "I do not know; nothing in this conversation says it."
	return llm.Result{Text: text, Provider: "test", Model: "unsure"}, fn(text)
}
func (unsureModel) Provider() string { return "test" }
func (unsureModel) Model() string    { return "unsure" }

// TestGradeReplyTwice: grading a reply again (a retried job, or two
// workers at once) stores one grade and one entry; a changed grade moves
// the entry instead of adding one.
func TestGradeReplyTwice(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.New(t)
	log := pgtest.Logger(t)
	scope, err := account.NewStore(pool).CreateTenantUser(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	hist := history.NewStore(pool)
	th, err := hist.CreateThread(ctx, scope, history.ThreadCreate{Title: "vat"})
	if err != nil {
		t.Fatal(err)
	}
	scope = scope.WithThread(th.ID)
	memory := mnemos.NewStore(pool, mnemos.NewSpace(pool, llm.NewOffline(), log), mnemos.Config{}, log, nil)
	engine := turn.NewEngine(pool, unsureModel{}, turn.Config{}, log, nil).WithMemory(memory, 3000).WithFacts(facts.NewStore(pool, facts.Config{}, log))
	svc := sufler.NewService(sufler.NewGrader(nil, ""), memory, hist, engine, log, nil)

	// The model knows nothing of this: the offline grader gives it 2.
	out, err := engine.Send(ctx, scope, turn.Input{Content: "What did we decide about the Norway export invoices?"}, func(turn.Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	rows := func() map[string]int {
		n := map[string]int{}
		for _, table := range []string{"grades", "experiences", "research_sufler_fails", "research_topics"} {
			var c int
			if err := pool.QueryRow(ctx, "SELECT count(*) FROM "+table+" WHERE tenant_id = $1", scope.TenantID).Scan(&c); err != nil {
				t.Fatal(err)
			}
			n[table] = c
		}
		return n
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if err := svc.GradeReply(ctx, scope, out.Reply.ID, false); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if err := svc.GradeReply(ctx, scope, out.Reply.ID, false); err != nil {
		t.Fatal(err)
	}
	// Two experiences: the user's private warning, and its shared twin (it
	// holds no personal data).
	want := map[string]int{"grades": 1, "experiences": 2, "research_sufler_fails": 1, "research_topics": 1}
	if got := rows(); !equal(got, want) {
		t.Fatalf("after grading five times: %v, want %v", got, want)
	}
	var fails int
	if err := pool.QueryRow(ctx, `SELECT fails FROM research_topics WHERE tenant_id = $1`, scope.TenantID).Scan(&fails); err != nil || fails != 1 {
		t.Fatalf("topic fails %d %v, want 1", fails, err)
	}

	// The user likes it after all: the warning, the fail and the topic's
	// count go (the warning's shared twin too); one example comes, with
	// its twin.
	if _, err := svc.Feedback(ctx, yakor.Scope{TenantID: scope.TenantID, UserID: scope.UserID}, out.Reply.ID, sufler.Feedback{Thumb: sufler.ThumbUp}); err != nil {
		t.Fatal(err)
	}
	want = map[string]int{"grades": 2, "experiences": 2, "research_sufler_fails": 0, "research_topics": 1}
	if got := rows(); !equal(got, want) {
		t.Fatalf("after thumbs up: %v, want %v", got, want)
	}
	var level int
	if err := pool.QueryRow(ctx, `SELECT max(level) FROM experiences WHERE tenant_id = $1`, scope.TenantID).Scan(&level); err != nil || level != 1 {
		t.Fatalf("level %d %v, want 1", level, err)
	}
	// The model's grade, retried again, no longer routes anything.
	if err := svc.GradeReply(ctx, scope, out.Reply.ID, false); err != nil {
		t.Fatal(err)
	}
	if got := rows(); !equal(got, want) {
		t.Fatalf("after the model graded again: %v, want %v", got, want)
	}
}

func equal(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
