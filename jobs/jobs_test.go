package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"yakor"
	"yakor/postgres/pgtest"
)

// anchorCalls records the message each anchoring call went up to.
type anchorCalls chan int64

func (c anchorCalls) Process(_ context.Context, _ yakor.Scope, upTo int64) (int, error) {
	c <- upTo
	return 0, nil
}

// TestStuckJobRescued: a job left running 20 minutes ago (its worker
// killed, or its end not recorded while the database was away) is taken
// for stuck and worked again, not after River's default hour.
func TestStuckJobRescued(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	calls := make(anchorCalls, 4)
	c, err := New(pool, Config{Workers: 1, Logger: pgtest.Logger(t)}, Workers{Anchors: calls})
	if err != nil {
		t.Fatal(err)
	}
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
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = c.Stop(sctx)
	})
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
