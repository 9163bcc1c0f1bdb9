package jobs

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"yakor"
	"yakor/account"
	"yakor/history"
	"yakor/postgres/pgtest"
	"yakor/turn"
)

// anchorCalls records the message each anchoring call went up to.
type anchorCalls chan int64

func (c anchorCalls) Process(_ context.Context, _ yakor.Scope, upTo int64) (int, error) {
	c <- upTo
	return 0, nil
}

// newClient is a client with one anchoring worker that calls calls.
func newClient(t *testing.T, pool *pgxpool.Pool, calls anchorCalls) *Client {
	t.Helper()
	c, err := New(pool, Config{Workers: 1, Logger: pgtest.Logger(t)}, Workers{Anchors: calls})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// start starts c working its queues until the test ends.
func start(t *testing.T, c *Client) {
	t.Helper()
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = c.Stop(ctx)
	})
}

// TestStuckJobRescued: a job left running 20 minutes ago (its worker
// killed, or its end not recorded while the database was away) is taken
// for stuck and worked again, not after River's default hour.
func TestStuckJobRescued(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	calls := make(anchorCalls, 4)
	c := newClient(t, pool, calls)
	args := AnchorArgs{UpTo{Thread: Thread{TenantID: uuid.NewString(), UserID: uuid.NewString(), ThreadID: uuid.NewString()}, UpTo: 42}}
	res, err := c.river.Insert(ctx, args, nil)
	if err != nil {
		t.Fatal(err)
	}
	// As a worker that died leaves it: running, attempted long ago.
	if _, err := pool.Exec(ctx, `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = now() - interval '20 minutes',
    attempted_by = ARRAY['dead-instance'] WHERE id = $1`, res.Job.ID); err != nil {
		t.Fatal(err)
	}
	start(t, c)
	select {
	case upTo := <-calls:
		if upTo != 42 {
			t.Fatalf("anchored up to %d, want 42", upTo)
		}
	case <-time.After(45 * time.Second):
		var state string
		_ = pool.QueryRow(ctx, `SELECT state FROM river_job WHERE id = $1`, res.Job.ID).Scan(&state)
		t.Fatalf("a job stuck running for 20 minutes was not rescued within 45 s (state %s)", state)
	}
}

// TestLaterJobCovers: of a thread's anchoring jobs waiting behind one
// another, only the latest turn's is worked (it takes the earlier ones'
// messages too); another thread's job is worked as ever.
func TestLaterJobCovers(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	scope, err := account.NewStore(pool).CreateTenantUser(ctx, "jobs")
	if err != nil {
		t.Fatal(err)
	}
	hist := history.NewStore(pool)
	// turns makes a thread of n turns and returns their replies' ids.
	turns := func(n int) (yakor.Scope, []int64) {
		th, err := hist.CreateThread(ctx, scope, history.ThreadCreate{Title: "jobs"})
		if err != nil {
			t.Fatal(err)
		}
		sc := scope.WithThread(th.ID)
		var replies []int64
		for i := range n {
			for _, role := range []string{history.RoleUser, history.RoleAssistant} {
				m, _, err := hist.Append(ctx, sc, history.NewMessage{Role: role, Content: fmt.Sprintf("%s %d", role, i)})
				if err != nil {
					t.Fatal(err)
				}
				if role == history.RoleAssistant {
					replies = append(replies, m.ID)
				}
			}
		}
		return sc, replies
	}
	sc, replies := turns(3)
	other, otherReplies := turns(1)
	calls := make(anchorCalls, 8)
	c := newClient(t, pool, calls)
	for _, a := range []AnchorArgs{{UpTo{ThreadOf(sc), replies[0]}}, {UpTo{ThreadOf(sc), replies[1]}}, {UpTo{ThreadOf(sc), replies[2]}},
		{UpTo{ThreadOf(other), otherReplies[0]}}} {
		if _, err := c.river.Insert(ctx, a, nil); err != nil {
			t.Fatal(err)
		}
	}
	start(t, c)
	deadline := time.Now().Add(30 * time.Second)
	for {
		var left int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE state <> 'completed'`).Scan(&left); err != nil {
			t.Fatal(err)
		}
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d jobs not completed after 30 s", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
	close(calls)
	var got []int64
	for upTo := range calls {
		got = append(got, upTo)
	}
	if want := []int64{replies[2], otherReplies[0]}; !slices.Equal(got, want) {
		t.Fatalf("anchored up to %v, want %v: the thread's latest turn, then the other thread's", got, want)
	}
}

// upkeeps records the message each upkeep went up to.
type upkeeps chan int64

func (u upkeeps) Process(_ context.Context, _ yakor.Scope, upTo int64) (int, error) {
	u <- upTo
	return 0, nil
}

// compactions counts compaction passes.
type compactions chan struct{}

func (c compactions) CompactAll(context.Context, yakor.Scope) (int, error) {
	c <- struct{}{}
	return 0, nil
}

// TestOneUpkeepJobPerTurn: with an upkeep worker, a turn enqueues one
// upkeep job (no anchoring, grading, facts or compaction job of its own),
// an import's at a lower priority than a live turn's; the job reads the
// turn and then compacts the thread.
func TestOneUpkeepJobPerTurn(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	ups, comps := make(upkeeps, 4), make(compactions, 4)
	c, err := New(pool, Config{Workers: 1, Logger: pgtest.Logger(t)},
		Workers{Upkeep: ups, Anchors: anchorCalls(make(chan int64, 4)), Compact: comps})
	if err != nil {
		t.Fatal(err)
	}
	scope := yakor.Scope{TenantID: uuid.NewString(), UserID: uuid.NewString(), ThreadID: uuid.NewString()}
	for _, a := range []turn.AfterTurn{{ReplyID: 7, Anchor: true}, {ReplyID: 9, Anchor: true, Imported: true}} {
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.EnqueueAfterTurn(ctx, tx, scope, a); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := pool.Query(ctx, `SELECT kind || ':' || (args->>'up_to') || ':' || priority FROM river_job ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"upkeep_thread:7:1", "upkeep_thread:9:3"}; !slices.Equal(jobs, want) {
		t.Fatalf("jobs %v, want %v", jobs, want)
	}
	start(t, c)
	for range 2 {
		select {
		case <-ups:
		case <-time.After(10 * time.Second):
			t.Fatal("an upkeep job was not worked")
		}
		select {
		case <-comps:
		case <-time.After(10 * time.Second):
			t.Fatal("the upkeep job did not compact")
		}
	}
}
