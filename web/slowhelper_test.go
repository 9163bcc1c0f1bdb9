package web_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"yakor/app"
	"yakor/llm"
	"yakor/turn"
)

// slowHelper is a helper model that takes its time: every call sleeps,
// and the first answer's time is kept.
type slowHelper struct {
	sleep   time.Duration
	calls   atomic.Int32
	mu      sync.Mutex
	firstAt time.Time
}

func (h *slowHelper) Complete(ctx context.Context, req llm.Request) (llm.Result, error) {
	h.calls.Add(1)
	select {
	case <-ctx.Done():
		return llm.Result{}, ctx.Err()
	case <-time.After(h.sleep):
	}
	h.mu.Lock()
	if h.firstAt.IsZero() {
		h.firstAt = time.Now()
	}
	h.mu.Unlock()
	return llm.Result{Text: "not JSON"}, nil // the jobs then go on offline
}

// TestSlowHelper: the request path never waits for a helper model. With
// every job's helper sleeping, six turns on six threads at once are all
// answered, and the thread list read, before any helper call returns; and
// while the helpers think, no session of the database holds a transaction
// open.
func TestSlowHelper(t *testing.T) {
	h := &slowHelper{sleep: 4 * time.Second}
	s := newStack(t, stackOptions{helpers: &app.Helpers{Upkeep: h, Anchors: h, Grader: h, Facts: h, Compaction: h, Research: h}, cfg: turn.Config{}})
	threads := make([]string, 6)
	for i := range threads {
		threads[i] = s.mustThread(t)
	}
	// A first turn each, so that the jobs (and their helper calls) run.
	for _, th := range threads {
		s.do(t, "POST", "/api/v1/threads/"+th+"/messages", `{"content":"My name is Ann and the budget is 9000."}`, nil)
	}
	deadline := time.Now().Add(10 * time.Second)
	for h.calls.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if h.calls.Load() == 0 {
		t.Fatal("no job asked the helper")
	}
	var wg sync.WaitGroup
	codes := make([]int, len(threads))
	for i, th := range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = s.do(t, "POST", "/api/v1/threads/"+th+"/messages", fmt.Sprintf(`{"content":"And what is turn %d about?"}`, i), nil)
		}()
	}
	wg.Wait()
	if code := s.do(t, "GET", "/api/v1/threads", "", nil); code != http.StatusOK {
		t.Fatalf("list threads: %d", code)
	}
	var open int
	if err := s.pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
WHERE datname = current_database() AND state LIKE 'idle in transaction%'`).Scan(&open); err != nil {
		t.Fatal(err)
	}
	done := time.Now()
	h.mu.Lock()
	first := h.firstAt
	h.mu.Unlock()
	for i, code := range codes {
		if code != http.StatusOK {
			t.Fatalf("turn %d: %d", i, code)
		}
	}
	if !first.IsZero() && first.Before(done) {
		t.Fatalf("a helper answered (%v) before the turns and the list were done (%v): the request path waited", first, done)
	}
	if open != 0 {
		t.Fatalf("%d sessions held a transaction open while the helpers thought", open)
	}
}
