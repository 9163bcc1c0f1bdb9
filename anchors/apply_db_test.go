package anchors_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"yakor"
	"yakor/account"
	"yakor/anchors"
	"yakor/history"
	"yakor/llm"
	"yakor/postgres"
	"yakor/postgres/pgtest"
)

// thread is a fresh database with one thread of the local user.
type thread struct {
	owner *pgxpool.Pool // not held by row-level security: checks
	svc   *postgres.DB  // the service role's, as yakor serve runs the service
	scope yakor.Scope
	ctx   context.Context // in the scope's tenant
	hist  *history.Store
}

func newThread(t *testing.T) *thread {
	t.Helper()
	owner, svc := pgtest.NewService(t)
	scope, err := account.NewStore(owner).EnsureLocal(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx := scope.Context(context.Background())
	hist := history.NewStore(svc)
	th, err := hist.CreateThread(ctx, scope, history.ThreadCreate{Title: "anchors"})
	if err != nil {
		t.Fatal(err)
	}
	return &thread{owner: owner, svc: svc, scope: scope.WithThread(th.ID), ctx: ctx, hist: hist}
}

// say appends a user's message and returns its id.
func (th *thread) say(t *testing.T, content string) int64 {
	t.Helper()
	m, _, err := th.hist.Append(th.ctx, th.scope, history.NewMessage{Role: "user", Content: content})
	if err != nil {
		t.Fatal(err)
	}
	return m.ID
}

// helper is a helper model that answers each message with the topic and
// data scripted for its text, and records, at each call, how many other
// connections of the database had a transaction open.
type helper struct {
	owner   *pgxpool.Pool
	answers map[string][2]string // message → topic, data
	during  func(message string) // runs inside the call, when set

	mu     sync.Mutex
	calls  []string
	openTx []int
}

func (h *helper) Complete(ctx context.Context, req llm.Request) (llm.Result, error) {
	text := req.Messages[len(req.Messages)-1].Content
	text = text[strings.Index(text, "):\n")+3:]
	var open int
	if err := h.owner.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid() AND xact_start IS NOT NULL`).Scan(&open); err != nil {
		return llm.Result{}, err
	}
	h.mu.Lock()
	h.calls, h.openTx = append(h.calls, text), append(h.openTx, open)
	h.mu.Unlock()
	if h.during != nil {
		h.during(text)
	}
	a := h.answers[text]
	answer, _ := json.Marshal(map[string]any{"topic": a[0], "data": a[1], "data_changed": a[1] != ""})
	return llm.Result{Text: string(answer)}, nil
}

func (h *helper) called(text string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, c := range h.calls {
		if c == text {
			n++
		}
	}
	return n
}

func newService(th *thread, h anchors.Completer) *anchors.Service {
	return anchors.NewService(th.svc, anchors.ServiceConfig{}, h, slog.New(slog.DiscardHandler), nil)
}

// TestApplyHelperOutsideTransaction: the helper model is asked with no
// database transaction open (the old Apply called it inside the one that
// wrote the anchors), and a run that sets, updates, detours, returns and
// folds a dataless detour writes the anchors with their stored ids.
func TestApplyHelperOutsideTransaction(t *testing.T) {
	th := newThread(t)
	h := &helper{owner: th.owner, answers: map[string][2]string{
		"Обсудим отпуск в Италии.":           {"отпуск в Италии", ""},
		"Ремонт кухни: смета 50 000 руб.":    {"ремонт кухни", "смета 50 000 руб"},
		"Вернёмся к отпуску в Италии.":       {"отпуск в Италии", ""},
		"Снова про ремонт кухни, что с ним?": {"ремонт кухни", ""},
	}}
	svc := newService(th, h)
	var last int64
	for _, c := range []string{"Обсудим отпуск в Италии.", "Ремонт кухни: смета 50 000 руб.", "Вернёмся к отпуску в Италии.", "Снова про ремонт кухни, что с ним?"} {
		last = th.say(t, c)
	}
	out, err := svc.Apply(th.ctx, th.scope, last)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range h.openTx {
		if n != 0 {
			t.Errorf("helper call %d (%q): %d transactions open", i, h.calls[i], n)
		}
	}
	if len(h.calls) != 4 {
		t.Fatalf("%d helper calls, want 4", len(h.calls))
	}
	var got []string
	for _, a := range out {
		got = append(got, string(a.Outcome.Decision))
	}
	if want := "NEW_ANCHOR NEW_ANCHOR MERGE_ANCHOR MERGE_ANCHOR"; strings.Join(got, " ") != want {
		t.Fatalf("decisions %v, want %s", got, want)
	}
	italy, kitchen := out[0].AnchorID, out[1].AnchorID
	if out[2].AnchorID != italy || out[3].AnchorID != kitchen || out[3].Outcome.TargetID != kitchen {
		t.Fatalf("anchors of the decisions %+v, want italy %d, kitchen %d", out, italy, kitchen)
	}
	// The dialogue left Italy (no data) for the kitchen: Italy is folded
	// into the kitchen.
	l, err := svc.List(th.ctx, th.scope)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Anchors) != 1 || l.Anchors[0].ID != kitchen || len(l.Anchors[0].Absorbed) != 1 || l.Anchors[0].Absorbed[0] != italy ||
		l.Anchors[0].Data != "смета 50 000 руб" || l.CurrentID != kitchen || l.ProcessedThrough != last {
		t.Fatalf("list %+v, want the kitchen %d absorbing Italy %d", l, kitchen, italy)
	}
	var merged int64
	if err := th.owner.QueryRow(context.Background(), `SELECT coalesce(merged_into, 0) FROM microgoals WHERE id = $1`, italy).Scan(&merged); err != nil || merged != kitchen {
		t.Fatalf("Italy merged into %d (%v), want %d", merged, err, kitchen)
	}
	ds, err := svc.Decisions(th.ctx, th.scope, []int64{out[0].MessageID, out[3].MessageID})
	if err != nil || len(ds) != 2 || ds[0].AnchorID != italy || ds[1].AnchorID != kitchen || ds[1].Topic != "ремонт кухни" || ds[1].Source != anchors.SourceHelper {
		t.Fatalf("decisions %+v (%v)", ds, err)
	}
}

// TestApplyKeepsEditMadeMeanwhile: a user's edit of the anchor a run
// rewrites, made while the helper was answering, is not overwritten: the
// write finds the data changed and the run starts over from it.
func TestApplyKeepsEditMadeMeanwhile(t *testing.T) {
	th := newThread(t)
	first, second := "Прайс: ЛДСП Egger 3400 руб.", "Итого ЛДСП: 12 листов, 40800 руб."
	h := &helper{owner: th.owner, answers: map[string][2]string{
		first:  {"прайс ЛДСП", "ЛДСП Egger 3400 руб"},
		second: {"прайс ЛДСП", "Итого 40800 руб"},
	}}
	svc := newService(th, h)
	out, err := svc.Apply(th.ctx, th.scope, th.say(t, first))
	if err != nil || len(out) != 1 {
		t.Fatalf("first message: %+v %v", out, err)
	}
	id := out[0].AnchorID
	edited := "ЛДСП Egger 3500 руб (уточнено)"
	h.during = func(text string) {
		if text == second && h.called(second) == 1 {
			if _, err := svc.UpdateAnchor(th.ctx, th.scope, id, anchors.Update{Data: &edited}); err != nil {
				t.Error(err)
			}
		}
	}
	if out, err = svc.Apply(th.ctx, th.scope, th.say(t, second)); err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].Outcome.Decision != anchors.UpdateAnchorData || h.called(second) != 2 {
		t.Fatalf("decisions %+v after %d helper calls, want one update after 2", out, h.called(second))
	}
	l, err := svc.List(th.ctx, th.scope)
	if err != nil {
		t.Fatal(err)
	}
	if want := anchors.Distill(edited, "Итого 40800 руб", anchors.MaxData); len(l.Anchors) != 1 || l.Anchors[0].Data != want {
		t.Fatalf("anchors %+v, want data %q", l.Anchors, want)
	}
}

// TestApplyAfterAnotherProcess: when another process anchors the thread
// while this one's helper answers, this one's write finds the cursor moved,
// reads again, finds its messages done and writes nothing.
func TestApplyAfterAnotherProcess(t *testing.T) {
	th := newThread(t)
	msg := "Прайс: ЛДСП Egger 3400 руб."
	h := &helper{owner: th.owner, answers: map[string][2]string{msg: {"прайс ЛДСП", "ЛДСП Egger 3400 руб"}}}
	svc, other := newService(th, h), newService(th, nil)
	id := th.say(t, msg)
	h.during = func(string) {
		ctx, cancel := context.WithTimeout(th.ctx, 10*time.Second)
		defer cancel()
		if out, err := other.Apply(ctx, th.scope, id); err != nil || len(out) != 1 {
			t.Errorf("the other process: %+v %v", out, err)
		}
	}
	out, err := svc.Apply(th.ctx, th.scope, id)
	if err != nil || len(out) != 0 {
		t.Fatalf("decisions %+v (%v), want none: the other process took the message", out, err)
	}
	l, err := svc.List(th.ctx, th.scope)
	if err != nil || len(l.Anchors) != 1 || l.ProcessedThrough != id || l.Anchors[0].Topic == "прайс ЛДСП" {
		t.Fatalf("list %+v (%v), want the other process's one offline anchor", l, err)
	}
}
