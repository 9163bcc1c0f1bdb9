package upkeep_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"yakor"
	"yakor/app"
	"yakor/app/apptest"
	"yakor/facts"
	"yakor/history"
	"yakor/llm"
	"yakor/postgres/pgtest"
	"yakor/turn"
)

// reader is a scripted helper model: it answers the reading of the new
// messages it is shown (a topic of each message's first two words, a
// name fact for "My name is …", a grade of 4 for each reply asked), or
// bad, the answers it is given first. It counts its calls and the
// transactions open in the database while it is asked.
type reader struct {
	pool *pgxpool.Pool
	mu   sync.Mutex
	bad  []string // answered first, one per call
	reqs []llm.Request
	open int
}

var (
	msgRe   = regexp.MustCompile(`(?m)^\[(\d+)\] (user|assistant), \w{3} \d{4}-\d{2}-\d{2}: (.*)$`)
	gradeRe = regexp.MustCompile(`(?m)^replies ([\d, ]+)$`)
	nameRe  = regexp.MustCompile(`My name is (\w+)`)
)

func (h *reader) Complete(ctx context.Context, req llm.Request) (llm.Result, error) {
	var open int
	err := h.pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
WHERE datname = current_database() AND pid <> pg_backend_pid() AND state LIKE 'idle in transaction%'`).Scan(&open)
	if err != nil {
		return llm.Result{}, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reqs = append(h.reqs, req)
	h.open += open
	if len(h.bad) > 0 {
		a := h.bad[0]
		h.bad = h.bad[1:]
		return llm.Result{Text: a, Model: "reader-1"}, nil
	}
	user := req.Messages[len(req.Messages)-1].Content
	var items, facts, grades []string
	for _, m := range msgRe.FindAllStringSubmatch(user, -1) {
		topic := strings.Join(strings.Fields(m[3])[:min(2, len(strings.Fields(m[3])))], " ")
		items = append(items, fmt.Sprintf(`{"id": %s, "topic": %q, "data": "", "data_changed": false}`, m[1], "helper "+topic))
		if n := nameRe.FindStringSubmatch(m[3]); n != nil && m[2] == "user" {
			facts = append(facts, fmt.Sprintf(`{"message": %s, "scope": "user", "kind": "fact", "slot": "user.name", "text": "The user's name is %s.", "value": %q, "confidence": 0.9}`, m[1], n[1], n[1]))
		}
	}
	if g := gradeRe.FindStringSubmatch(user); g != nil {
		for _, id := range strings.Split(g[1], ", ") {
			grades = append(grades, fmt.Sprintf(`{"reply": %s, "score": 4, "reason": "Scripted.", "research_topic": ""}`, id))
		}
	}
	return llm.Result{Model: "reader-1", Text: fmt.Sprintf(`{"messages": [%s], "facts": [%s], "forget": [], "grades": [%s]}`,
		strings.Join(items, ", "), strings.Join(facts, ", "), strings.Join(grades, ", "))}, nil
}

func (h *reader) calls() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.reqs)
}

// graded are the replies the requests so far asked grades of.
func (h *reader) graded() []int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	var ids []int64
	for _, r := range h.reqs {
		if g := gradeRe.FindStringSubmatch(r.Messages[1].Content); g != nil {
			for _, s := range strings.Split(g[1], ", ") {
				id, _ := strconv.ParseInt(s, 10, 64)
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// chat is a chat model that answers every turn alike (the offline
// model's replies are not graded).
type chat struct{}

func (chat) Stream(_ context.Context, _ llm.Request, fn func(string) error) (llm.Result, error) {
	const text = "Noted: the oak board is 3400 rub per sheet."
	return llm.Result{Text: text, Model: "chat-1", FinishReason: "stop"}, fn(text)
}
func (chat) Provider() string { return "openai" }
func (chat) Model() string    { return "chat-1" }

// stack is the app with inline jobs, a reply model and the scripted
// reader as the upkeep helper.
type stack struct {
	*apptest.Server
	h     *reader
	scope yakor.Scope
}

func newStack(t *testing.T, cfg app.Config) *stack {
	pool, svc := pgtest.NewService(t)
	h := &reader{pool: pool}
	s := apptest.Start(t, cfg, app.WithDatabase(&app.Database{Owner: pool, Tenant: svc}), app.WithInlineJobs(),
		app.WithHelpers(app.Helpers{Upkeep: h}), app.WithChatModel(chat{}))
	th, err := s.History.CreateThread(s.Local.Context(t.Context()), s.Local, history.ThreadCreate{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	return &stack{Server: s, h: h, scope: s.Local.WithThread(th.ID)}
}

// say sends a turn and returns its reply's id.
func (s *stack) say(t *testing.T, text string) int64 {
	t.Helper()
	out, err := s.Engine.Send(s.ctx(t), s.scope, turn.Input{Content: text}, func(turn.Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	return out.Reply.ID
}

// ctx is the test's context, in the thread's tenant.
func (s *stack) ctx(t *testing.T) context.Context { return s.scope.Context(t.Context()) }

func (s *stack) run(t *testing.T) {
	t.Helper()
	if err := s.Inline.RunPending(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// TestOneHelperCallPerTurn: each turn's anchoring, facts and grade come
// from one helper call, asked with no transaction open, and each service
// keeps what it read.
func TestOneHelperCallPerTurn(t *testing.T) {
	s := newStack(t, apptest.Config())
	var replies []int64
	for i, text := range []string{"My name is Anna and I plan a kitchen.", "Board prices: oak 3400 rub per sheet.", "What does the oak board cost?"} {
		replies = append(replies, s.say(t, text))
		s.run(t)
		if got := s.h.calls(); got != i+1 {
			t.Fatalf("after turn %d the helper was asked %d times, want %d", i+1, got, i+1)
		}
	}
	if s.h.open != 0 {
		t.Fatalf("%d transactions were open while the helper thought", s.h.open)
	}
	ctx := s.ctx(t)
	list, err := s.Anchors.List(ctx, s.scope)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Anchors) == 0 || !strings.HasPrefix(list.Anchors[0].Topic, "helper My name") {
		t.Fatalf("anchors are not the helper's: %+v", list)
	}
	fs, err := s.Facts.List(ctx, s.scope, facts.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if !hasFact(fs, "The user's name is Anna.") {
		t.Fatalf("the helper's fact was not kept: %+v", fs)
	}
	for _, id := range replies {
		gs, err := s.Memory.Grades(ctx, s.scope, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(gs) != 1 || gs[0].Score != 4 || gs[0].Grader != "reader-1" {
			t.Fatalf("reply %d's grades: %+v, want one 4 by reader-1", id, gs)
		}
	}
}

func hasFact(fs []facts.Fact, text string) bool {
	for _, f := range fs {
		if f.Text == text {
			return true
		}
	}
	return false
}

// TestBacklogOneCall: a thread whose upkeep is behind by three turns is
// read in one call, every reply graded.
func TestBacklogOneCall(t *testing.T) {
	s := newStack(t, apptest.Config())
	var last int64
	for _, text := range []string{"The sofa is 31500.", "The table is 12000.", "The lamp is 900."} {
		last = s.say(t, text)
	}
	n, err := s.Upkeep.Process(s.ctx(t), s.scope, last)
	if err != nil {
		t.Fatal(err)
	}
	if n != 6 || s.h.calls() != 1 || len(s.h.graded()) != 3 {
		t.Fatalf("read %d messages in %d calls grading %v, want 6 in 1 grading 3", n, s.h.calls(), s.h.graded())
	}
	if n, err := s.Upkeep.Process(s.ctx(t), s.scope, last); n != 0 || err != nil || s.h.calls() != 1 {
		t.Fatalf("a second run read %d messages (%v), %d calls in all", n, err, s.h.calls())
	}
}

// TestMalformedReading: a malformed answer is asked again once; two are
// read offline, with no third call.
func TestMalformedReading(t *testing.T) {
	s := newStack(t, apptest.Config())
	s.h.bad = []string{"Sure! Here is the JSON you asked for:", `{"messages": {}}`}
	s.say(t, "Price list: board 3400 rub, panel 1250 rub.")
	s.run(t)
	if s.h.calls() != 2 {
		t.Fatalf("the helper was asked %d times, want 2", s.h.calls())
	}
	list, err := s.Anchors.List(s.ctx(t), s.scope)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Anchors) != 1 || strings.HasPrefix(list.Anchors[0].Topic, "helper") || !strings.Contains(list.Anchors[0].Data, "3400") {
		t.Fatalf("not read offline: %+v", list)
	}
	s.h.bad = []string{"not json"}
	s.say(t, "My name is Oleg.")
	s.run(t)
	if s.h.calls() != 4 {
		t.Fatalf("the helper was asked %d times in all, want 4 (a retry answered)", s.h.calls())
	}
	fs, err := s.Facts.List(s.ctx(t), s.scope, facts.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if !hasFact(fs, "The user's name is Oleg.") {
		t.Fatalf("the retried reading was not kept: %+v", fs)
	}
}

// TestOfflineRepliesUngraded: the offline model's replies are not graded
// (nor asked about): they are canned.
func TestOfflineRepliesUngraded(t *testing.T) {
	pool, svc := pgtest.NewService(t)
	h := &reader{pool: pool}
	s := apptest.Start(t, apptest.Config(), app.WithDatabase(&app.Database{Owner: pool, Tenant: svc}), app.WithInlineJobs(),
		app.WithHelpers(app.Helpers{Upkeep: h}))
	ctx := s.Local.Context(t.Context())
	th, err := s.History.CreateThread(ctx, s.Local, history.ThreadCreate{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	scope := s.Local.WithThread(th.ID)
	out, err := s.Engine.Send(ctx, scope, turn.Input{Content: "What does the oak board cost?"}, func(turn.Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Inline.RunPending(ctx); err != nil {
		t.Fatal(err)
	}
	gs, err := s.Memory.Grades(ctx, scope, out.Reply.ID)
	if err != nil {
		t.Fatal(err)
	}
	if h.calls() != 1 || len(h.graded()) != 0 || len(gs) != 0 {
		t.Fatalf("%d calls asking grades of %v; %d grades stored", h.calls(), h.graded(), len(gs))
	}
}

// TestGradeRate: with half the replies sampled, some are graded and some
// not, and what is not graded is not asked about.
func TestGradeRate(t *testing.T) {
	cfg := apptest.Config()
	cfg.GradeRate = 0.5
	s := newStack(t, cfg)
	var ungraded int
	for i := range 12 {
		id := s.say(t, fmt.Sprintf("Question number %d about the kitchen?", i))
		s.run(t)
		gs, err := s.Memory.Grades(s.ctx(t), s.scope, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(gs) == 0 {
			ungraded++
		}
	}
	if asked := len(s.h.graded()); asked == 0 || asked == 12 || asked+ungraded != 12 {
		t.Fatalf("%d of 12 replies asked for a grade, %d left ungraded", asked, ungraded)
	}
	if s.h.calls() != 12 {
		t.Fatalf("%d calls for 12 turns", s.h.calls())
	}
}
