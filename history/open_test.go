package history_test

import (
	"context"
	"sync"
	"testing"

	"yakor"
	"yakor/account"
	"yakor/history"
	"yakor/postgres/pgtest"
)

// TestOpenThread: a key names one thread of its user; the history is
// stored only by the call that creates it, also when many calls race; no
// key makes a new thread every time; a bad history message stores nothing.
func TestOpenThread(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.New(t)
	accounts := account.NewStore(pool)
	scope, err := accounts.EnsureLocal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s := history.NewStore(pool)
	hist := []history.NewMessage{
		{Role: history.RoleUser, Content: "The oak table costs 48200."},
		{Role: history.RoleAssistant, Content: "Noted."},
	}
	open := history.ThreadOpen{Key: "ann@example.com", Create: history.ThreadCreate{Title: "oak", SystemPrompt: "Be brief."}, History: hist}

	t.Run("Race", func(t *testing.T) {
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			ids     = map[string]int{}
			created int
		)
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				th, c, err := s.OpenThread(ctx, scope, open)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				ids[th.ID]++
				if c {
					created++
				}
			}()
		}
		wg.Wait()
		if len(ids) != 1 || created != 1 {
			t.Fatalf("threads %v, created %d times; want one thread created once", ids, created)
		}
		for id := range ids {
			th, err := s.FindThread(ctx, scope.WithThread(id))
			if err != nil {
				t.Fatal(err)
			}
			if th.ExternalKey != open.Key || th.SystemPrompt != "Be brief." || th.Title != "oak" || th.MessageCount != 2 {
				t.Fatalf("thread %+v", th)
			}
			msgs, err := s.Messages(ctx, scope.WithThread(id), history.MessageFilter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(msgs) != 2 || msgs[0].Content != hist[0].Content || msgs[1].Role != history.RoleAssistant {
				t.Fatalf("history %+v", msgs)
			}
		}
	})

	t.Run("KeysAreTheUsers", func(t *testing.T) {
		other, err := accounts.CreateTenantUser(ctx, "globex")
		if err != nil {
			t.Fatal(err)
		}
		th, created, err := s.OpenThread(ctx, other, history.ThreadOpen{Key: open.Key})
		if err != nil || !created || th.MessageCount != 0 {
			t.Fatalf("another user's key: %+v created %v err %v", th, created, err)
		}
	})

	t.Run("NoKey", func(t *testing.T) {
		a, ca, err := s.OpenThread(ctx, scope, history.ThreadOpen{History: hist})
		if err != nil {
			t.Fatal(err)
		}
		b, cb, err := s.OpenThread(ctx, scope, history.ThreadOpen{History: hist})
		if err != nil {
			t.Fatal(err)
		}
		if !ca || !cb || a.ID == b.ID || a.MessageCount != 2 || a.ExternalKey != "" {
			t.Fatalf("a %+v (%v), b %+v (%v)", a, ca, b, cb)
		}
	})

	t.Run("BadHistory", func(t *testing.T) {
		_, _, err := s.OpenThread(ctx, scope, history.ThreadOpen{Key: "carl", History: []history.NewMessage{
			{Role: history.RoleUser, Content: "fine"}, {Role: history.RoleAssistant, Content: "  "},
		}})
		if yakor.ErrorCode(err) != yakor.EINVALID {
			t.Fatalf("err %v", err)
		}
		if _, created, err := s.OpenThread(ctx, scope, history.ThreadOpen{Key: "carl"}); err != nil || !created {
			t.Fatalf("after a refused open the key is free: created %v err %v", created, err)
		}
	})
}
