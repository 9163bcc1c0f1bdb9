package history_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"yakor"
	"yakor/account"
	"yakor/history"
	"yakor/postgres/pgtest"
)

func mustThread(tb testing.TB, s *history.Store, scope yakor.Scope) yakor.Scope {
	tb.Helper()
	th, err := s.CreateThread(context.Background(), scope, history.ThreadCreate{Title: "t"})
	if err != nil {
		tb.Fatalf("create thread: %v", err)
	}
	return scope.WithThread(th.ID)
}

func mustSetup(tb testing.TB) (*history.Store, yakor.Scope) {
	tb.Helper()
	pool := pgtest.New(tb)
	scope, err := account.NewStore(pool).EnsureLocal(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return history.NewStore(pool), scope
}

func mustAppend(tb testing.TB, s *history.Store, scope yakor.Scope, content string) history.Message {
	tb.Helper()
	m, _, err := s.Append(context.Background(), scope, history.NewMessage{Role: history.RoleUser, Content: content})
	if err != nil {
		tb.Fatalf("append: %v", err)
	}
	return m
}

// TestWindowProperty checks, for random message sizes and budgets, that the
// window never exceeds the budget, is the contiguous newest run of messages,
// and could not take one more.
func TestWindowProperty(t *testing.T) {
	ctx := context.Background()
	s, base := mustSetup(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 12 {
		scope := mustThread(t, s, base)
		n, maxSize := rng.IntN(120), 600
		if trial%4 == 0 {
			// Short messages, more than a page of them: the window is
			// read on past its first page.
			n, maxSize = 130+rng.IntN(300), 40
		}
		var all []history.Message
		for i := range n {
			size := 1 + rng.IntN(maxSize)
			if rng.IntN(10) == 0 {
				size = 1 + rng.IntN(5000)
			}
			// Cyrillic letters are two bytes each: the budget counts characters.
			content := strings.Repeat("я", size/2) + strings.Repeat("x", size-size/2)
			all = append(all, mustAppend(t, s, scope, content+fmt.Sprint(i)))
		}
		for _, budget := range []int{0, 1, 500, 3000, 20000, rng.IntN(40000), 1 << 30} {
			w, err := s.Window(ctx, scope, budget, 0)
			if err != nil {
				t.Fatal(err)
			}
			sum := 0
			for _, m := range w {
				sum += m.Chars
				if m.Chars != len([]rune(m.Content)) {
					t.Fatalf("message %d: chars %d, runes %d", m.ID, m.Chars, len([]rune(m.Content)))
				}
			}
			if sum > budget {
				t.Fatalf("trial %d budget %d: window holds %d characters", trial, budget, sum)
			}
			// contiguous newest run
			k := len(w)
			for i := range w {
				if w[i].ID != all[n-k+i].ID {
					t.Fatalf("trial %d budget %d: window[%d] = %d, want %d", trial, budget, i, w[i].ID, all[n-k+i].ID)
				}
			}
			// maximal: the next older message would not fit
			if k < n && sum+all[n-k-1].Chars <= budget {
				t.Fatalf("trial %d budget %d: window of %d chars could take message %d (%d chars)", trial, budget, sum, all[n-k-1].ID, all[n-k-1].Chars)
			}
		}
		// beforeID excludes the newest messages
		if n > 3 {
			w, err := s.Window(ctx, scope, 1<<30, all[n-2].ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(w) != n-2 || w[len(w)-1].ID != all[n-3].ID {
				t.Fatalf("beforeID: got %d messages", len(w))
			}
		}
	}
}

func TestAppendClientIDOnce(t *testing.T) {
	ctx := context.Background()
	s, base := mustSetup(t)
	scope := mustThread(t, s, base)

	first, created, err := s.Append(ctx, scope, history.NewMessage{Role: history.RoleUser, Content: "hello", ClientID: "c-1"})
	if err != nil || !created {
		t.Fatalf("first append: created=%v err=%v", created, err)
	}
	again, created, err := s.Append(ctx, scope, history.NewMessage{Role: history.RoleUser, Content: "hello again", ClientID: "c-1"})
	if err != nil || created || again.ID != first.ID || again.Content != "hello" {
		t.Fatalf("second append: %+v created=%v err=%v", again, created, err)
	}

	// concurrently
	var wg sync.WaitGroup
	ids := make(chan int64, 16)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, _, err := s.Append(ctx, scope, history.NewMessage{Role: history.RoleUser, Content: "race", ClientID: "c-2"})
			if err != nil {
				t.Error(err)
				return
			}
			ids <- m.ID
		}()
	}
	wg.Wait()
	close(ids)
	var id int64
	for got := range ids {
		if id != 0 && got != id {
			t.Fatalf("concurrent appends returned ids %d and %d", id, got)
		}
		id = got
	}
	msgs, err := s.Messages(ctx, scope, history.MessageFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 {
		t.Fatalf("thread holds %d messages, want 2", len(msgs))
	}
	// the same client id in another thread is another message
	other := mustThread(t, s, base)
	m, created, err := s.Append(ctx, other, history.NewMessage{Role: history.RoleUser, Content: "x", ClientID: "c-1"})
	if err != nil || !created || m.ID == first.ID {
		t.Fatalf("other thread: created=%v err=%v", created, err)
	}
}

func TestValidateContent(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		code          string
	}{
		{"OK", "привет", ""},
		{"Empty", "", yakor.EINVALID},
		{"Blank", " \n\t", yakor.EINVALID},
		{"NUL", "a\x00b", yakor.EINVALID},
		{"InvalidUTF8", "a\xffb", yakor.EINVALID},
		{"TooLong", strings.Repeat("ж", 11), yakor.ETOOLARGE},
		{"AtLimit", strings.Repeat("ж", 10), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := yakor.ErrorCode(history.ValidateContent(tc.content, 10)); got != tc.code {
				t.Fatalf("code %q, want %q", got, tc.code)
			}
		})
	}
}

// mustTwoTenants returns a fresh database's owner pool, a store on it and
// the scopes of two tenants' users, a and b.
func mustTwoTenants(tb testing.TB) (*pgxpool.Pool, *history.Store, yakor.Scope, yakor.Scope) {
	tb.Helper()
	ctx := context.Background()
	pool := pgtest.New(tb)
	accounts := account.NewStore(pool)
	a, err := accounts.CreateTenantUser(ctx, "a")
	if err != nil {
		tb.Fatal(err)
	}
	b, err := accounts.CreateTenantUser(ctx, "b")
	if err != nil {
		tb.Fatal(err)
	}
	return pool, history.NewStore(pool), a, b
}

func TestScopeIsolation(t *testing.T) {
	ctx := context.Background()
	_, s, a, b := mustTwoTenants(t)
	ta := mustThread(t, s, a)
	mustAppend(t, s, ta, "secret of a")

	intruder := b.WithThread(ta.ThreadID)
	if _, err := s.Messages(ctx, intruder, history.MessageFilter{}); yakor.ErrorCode(err) != yakor.ENOTFOUND {
		t.Fatalf("tenant b listing a's thread: %v", err)
	}
	if _, _, err := s.Append(ctx, intruder, history.NewMessage{Role: history.RoleUser, Content: "x"}); yakor.ErrorCode(err) != yakor.ENOTFOUND {
		t.Fatalf("tenant b appending to a's thread: %v", err)
	}
	if w, err := s.Window(ctx, intruder, 1000, 0); err != nil || len(w) != 0 {
		t.Fatalf("tenant b window of a's thread: %d messages, %v", len(w), err)
	}
	if ts, err := s.FindThreads(ctx, b, history.ThreadFilter{}); err != nil || len(ts) != 0 {
		t.Fatalf("tenant b sees %d threads, %v", len(ts), err)
	}
}

// TestAppendTo: AppendTo appends to the thread found before without finding
// it again; a thread that is not scope's, or was deleted since, is
// ENOTFOUND, as with Append.
func TestAppendTo(t *testing.T) {
	ctx := context.Background()
	pool, s, a, b := mustTwoTenants(t)
	scope := mustThread(t, s, a)
	th, err := s.FindThread(ctx, scope)
	if err != nil {
		t.Fatal(err)
	}
	nm := history.NewMessage{Role: history.RoleUser, Content: "hello", ClientID: "c-1"}
	first, created, err := s.AppendTo(ctx, scope, th, nm)
	if err != nil || !created || first.Content != "hello" || first.ThreadID != th.ID {
		t.Fatalf("append: %+v created=%v err=%v", first, created, err)
	}
	upper := scope.WithThread(strings.ToUpper(th.ID))
	if again, created, err := s.AppendTo(ctx, upper, th, nm); err != nil || created || again.ID != first.ID {
		t.Fatalf("append again (thread id in capitals): %+v created=%v err=%v", again, created, err)
	}
	if _, _, err := s.AppendTo(ctx, scope, th, history.NewMessage{Role: "nobody", Content: "x"}); yakor.ErrorCode(err) != yakor.EINVALID {
		t.Fatalf("unknown role: %v", err)
	}
	other := mustThread(t, s, a)
	if _, _, err := s.AppendTo(ctx, other, th, history.NewMessage{Role: history.RoleUser, Content: "x"}); yakor.ErrorCode(err) != yakor.ENOTFOUND {
		t.Fatalf("a thread that is not scope's: %v", err)
	}
	if _, _, err := s.AppendTo(ctx, b.WithThread(th.ID), th, history.NewMessage{Role: history.RoleUser, Content: "x"}); yakor.ErrorCode(err) != yakor.ENOTFOUND {
		t.Fatalf("tenant b appending to a's thread: %v", err)
	}
	if _, err := pool.Exec(ctx, `DELETE FROM threads WHERE id = $1`, th.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.AppendTo(ctx, scope, th, history.NewMessage{Role: history.RoleUser, Content: "x"}); yakor.ErrorCode(err) != yakor.ENOTFOUND {
		t.Fatalf("a thread deleted since: %v", err)
	}
}
