package facts_test

import (
	"context"
	"sync/atomic"
	"testing"

	"yakor/facts"
	"yakor/llm"
	"yakor/postgres/pgtest"
)

// txWatcher is a helper model that, each time it is asked, counts the
// database's sessions holding a transaction open: while a model thinks,
// none may be the extractor's.
type txWatcher struct {
	f     *fixture
	calls atomic.Int32
	open  atomic.Int32
}

func (w *txWatcher) Complete(ctx context.Context, req llm.Request) (llm.Result, error) {
	w.calls.Add(1)
	var n int32
	err := w.f.pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
WHERE datname = current_database() AND pid <> pg_backend_pid() AND state LIKE 'idle in transaction%'`).Scan(&n)
	if err != nil {
		return llm.Result{}, err
	}
	w.open.Add(n)
	return llm.Result{Text: `{"facts": [{"scope": "user", "kind": "fact", "slot": "user.name", "text": "The user's name is Ann.", "value": "Ann", "confidence": 0.9}], "forget": []}`}, nil
}

// TestNoTransactionWhileTheHelperThinks: fact extraction asks its helper
// with no transaction open (it reads, asks, then writes in a short
// transaction), and what the helper said is written.
func TestNoTransactionWhileTheHelperThinks(t *testing.T) {
	f := newFixture(t)
	scope := f.thread(t, f.tenant(t))
	w := &txWatcher{f: f}
	store := facts.NewStore(f.pool, facts.Config{}, pgtest.Logger(t)).WithHelper(w)
	say(t, f, store, scope, "Hi, I am Ann.", "I work on the kitchen order.")
	if w.calls.Load() != 2 {
		t.Fatalf("the helper was asked %d times, want 2", w.calls.Load())
	}
	if n := w.open.Load(); n != 0 {
		t.Fatalf("%d transactions were open while the helper thought", n)
	}
	found := false
	for _, fact := range current(t, store, scope) {
		found = found || fact.Text == "The user's name is Ann."
	}
	if !found {
		t.Fatalf("the helper's fact was not written: %+v", current(t, store, scope))
	}
}
