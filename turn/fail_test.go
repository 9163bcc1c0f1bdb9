package turn_test

import (
	"context"
	"net"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"yakor"
	"yakor/account"
	"yakor/history"
	"yakor/llm"
	"yakor/postgres"
	"yakor/postgres/pgtest"
	"yakor/turn"
)

// flakyDB is the service role's database, which a test can take away:
// while down, every call fails as one to a stopped server does.
type flakyDB struct {
	*postgres.DB
	down atomic.Bool
}

var _ turn.DB = (*flakyDB)(nil)

var errDown = &net.OpError{Op: "dial", Net: "unix", Err: syscall.ECONNREFUSED}

func (d *flakyDB) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if d.down.Load() {
		return pgconn.CommandTag{}, errDown
	}
	return d.DB.Exec(ctx, sql, args...)
}

func (d *flakyDB) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if d.down.Load() {
		return nil, errDown
	}
	return d.DB.Query(ctx, sql, args...)
}

func (d *flakyDB) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if d.down.Load() {
		return downRow{}
	}
	return d.DB.QueryRow(ctx, sql, args...)
}

func (d *flakyDB) Begin(ctx context.Context) (pgx.Tx, error) {
	if d.down.Load() {
		return nil, errDown
	}
	return d.DB.Begin(ctx)
}

type downRow struct{}

func (downRow) Scan(...any) error { return errDown }

// model answers with reply, calling before first (when set).
type model struct {
	before func(ctx context.Context)
	reply  string
}

func (m *model) Stream(ctx context.Context, _ llm.Request, fn func(string) error) (llm.Result, error) {
	if m.before != nil {
		m.before(ctx)
	}
	if err := fn(m.reply); err != nil {
		return llm.Result{}, err
	}
	return llm.Result{Text: m.reply, Provider: "test", Model: "test"}, nil
}
func (m *model) Provider() string { return "test" }
func (m *model) Model() string    { return "test" }

// fixture is a thread on a fresh database, its owner's pool for checks and
// the service role's database for engines.
type fixture struct {
	owner *pgxpool.Pool
	svc   *postgres.DB
	scope yakor.Scope
}

func mustFixture(t *testing.T) fixture {
	t.Helper()
	owner, svc := pgtest.NewService(t)
	ctx := context.Background()
	scope, err := account.NewStore(owner).EnsureLocal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	th, err := history.NewStore(svc).CreateThread(scope.Context(ctx), scope, history.ThreadCreate{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	return fixture{owner: owner, svc: svc, scope: scope.WithThread(th.ID)}
}

func (f fixture) send(e *turn.Engine, content, clientID string) (turn.Outcome, error) {
	return e.Send(f.scope.Context(context.Background()), f.scope, turn.Input{Content: content, ClientID: clientID}, func(turn.Event) error { return nil })
}

// statuses are the thread's turns' statuses, sorted.
func (f fixture) statuses(t *testing.T) []string {
	t.Helper()
	rows, _ := f.owner.Query(context.Background(), `SELECT status FROM turns WHERE thread_id = $1 ORDER BY status`, f.scope.ThreadID)
	s, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// roles are the thread's messages' roles, oldest first.
func (f fixture) roles(t *testing.T) []string {
	t.Helper()
	rows, _ := f.owner.Query(context.Background(), `SELECT role || ':' || content FROM messages WHERE thread_id = $1 ORDER BY id`, f.scope.ThreadID)
	s, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// failWhileDown runs a turn whose database goes away while the model
// answers: the reply cannot be stored, nor the failure recorded.
func failWhileDown(t *testing.T, f fixture, db *flakyDB, e *turn.Engine, m *model) {
	t.Helper()
	m.before = func(context.Context) { db.down.Store(true) }
	_, err := f.send(e, "hello", "c1")
	m.before = nil
	if yakor.ErrorCode(err) != yakor.EUNAVAILABLE {
		t.Fatalf("send with the database gone: %v (code %q), want unavailable", err, yakor.ErrorCode(err))
	}
	if got := f.statuses(t); !slices.Equal(got, []string{"running"}) {
		t.Fatalf("turns %v, want the one left running", got)
	}
	if n := turn.KeptFailures(e); n != 1 {
		t.Fatalf("%d failures kept, want 1", n)
	}
}

// TestResendAfterDatabaseOutage: a turn fails because the database went
// away, too early to record its failure. A resend while it is still away
// is 503, not a conflict; once it is back, the resend to the same engine
// records the failure and answers, once.
func TestResendAfterDatabaseOutage(t *testing.T) {
	f := mustFixture(t)
	db := &flakyDB{DB: f.svc}
	m := &model{reply: "the answer"}
	e := turn.NewEngine(db, m, turn.Config{}, pgtest.Logger(t), nil)
	failWhileDown(t, f, db, e, m)

	if _, err := f.send(e, "hello", "c1"); yakor.ErrorCode(err) != yakor.EUNAVAILABLE {
		t.Fatalf("resend while the database is away: %v, want unavailable", err)
	}
	db.down.Store(false)
	out, err := f.send(e, "hello", "c1")
	if err != nil {
		t.Fatalf("resend once the database is back: %v", err)
	}
	if out.Replayed || out.Reply.Content != "the answer" {
		t.Fatalf("outcome %+v", out)
	}
	if got := f.statuses(t); !slices.Equal(got, []string{"failed", "ok"}) {
		t.Fatalf("turns %v, want the failed one and the one that answered", got)
	}
	if got := f.roles(t); !slices.Equal(got, []string{"user:hello", "assistant:the answer"}) {
		t.Fatalf("messages %v", got)
	}
	if n := turn.KeptFailures(e); n != 0 {
		t.Fatalf("%d failures still kept", n)
	}
	again, err := f.send(e, "hello", "c1")
	if err != nil || !again.Replayed || again.Reply.ID != out.Reply.ID {
		t.Fatalf("a third send should replay the answer: %+v, %v", again, err)
	}
}

// TestFailureRecordedWhenDatabaseIsBack: another instance sees the turn
// running (409) until the engine that ran it records its failure by itself
// once the database is back; then it answers the resend.
func TestFailureRecordedWhenDatabaseIsBack(t *testing.T) {
	f := mustFixture(t)
	db := &flakyDB{DB: f.svc}
	m := &model{reply: "first"}
	e := turn.NewEngine(db, m, turn.Config{}, pgtest.Logger(t), nil)
	failWhileDown(t, f, db, e, m)

	other := turn.NewEngine(f.svc, &model{reply: "second"}, turn.Config{}, pgtest.Logger(t), nil)
	if _, err := f.send(other, "hello", "c1"); yakor.ErrorCode(err) != yakor.ECONFLICT {
		t.Fatalf("resend to another instance before the failure is recorded: %v, want a conflict", err)
	}
	db.down.Store(false)
	deadline := time.Now().Add(time.Minute)
	for !slices.Equal(f.statuses(t), []string{"failed"}) {
		if time.Now().After(deadline) {
			t.Fatalf("the failure was not recorded once the database was back: turns %v", f.statuses(t))
		}
		time.Sleep(20 * time.Millisecond)
	}
	out, err := f.send(other, "hello", "c1")
	if err != nil || out.Reply.Content != "second" {
		t.Fatalf("resend to another instance after: %+v, %v", out, err)
	}
	if got := f.roles(t); !slices.Equal(got, []string{"user:hello", "assistant:second"}) {
		t.Fatalf("messages %v", got)
	}
}

// TestAbandonedTurnStoresNoReply: a turn taken for abandoned while its
// writer still runs (here: a resend after StaleTurnAfter) is answered by
// the resend; the first writer's late reply is refused with a conflict
// (it was an internal error from the one-answer index), not stored beside it.
func TestAbandonedTurnStoresNoReply(t *testing.T) {
	f := mustFixture(t)
	started, release := make(chan struct{}), make(chan struct{})
	slow := &model{reply: "late", before: func(context.Context) { close(started); <-release }}
	first := turn.NewEngine(f.svc, slow, turn.Config{}, pgtest.Logger(t), nil)
	done := make(chan error, 1)
	go func() {
		_, err := f.send(first, "hello", "c1")
		done <- err
	}()
	<-started
	impatient := turn.NewEngine(f.svc, &model{reply: "prompt"}, turn.Config{StaleTurnAfter: time.Nanosecond}, pgtest.Logger(t), nil)
	if out, err := f.send(impatient, "hello", "c1"); err != nil || out.Reply.Content != "prompt" {
		t.Fatalf("resend taking the turn for abandoned: %+v, %v", out, err)
	}
	close(release)
	if err := <-done; yakor.ErrorCode(err) != yakor.ECONFLICT {
		t.Fatalf("the abandoned writer's send: %v, want a conflict", err)
	}
	if got := f.roles(t); !slices.Equal(got, []string{"user:hello", "assistant:prompt"}) {
		t.Fatalf("messages %v, want one reply", got)
	}
	if got := f.statuses(t); !slices.Equal(got, []string{"failed", "ok"}) {
		t.Fatalf("turns %v", got)
	}
}
