package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"yakor/turn"
)

// listAll follows a list's next_cursor to its end, limit at a time, and
// returns the ids of its entries in order (the "id" of each, as text).
func (s *stack) listAll(t *testing.T, path, name string, limit int) []string {
	t.Helper()
	var ids []string
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatalf("%s: the cursors never end", path)
		}
		q := url.Values{"limit": {fmt.Sprint(limit)}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		var page map[string]any
		sep := "?"
		if containsRune(path, '?') {
			sep = "&"
		}
		if code := s.do(t, "GET", path+sep+q.Encode(), "", &page); code != http.StatusOK {
			t.Fatalf("%s: %d %v", path, code, page)
		}
		list, _ := page[name].([]any)
		if len(list) > limit {
			t.Fatalf("%s: %d entries on a page of %d", path, len(list), limit)
		}
		for _, e := range list {
			ids = append(ids, fmt.Sprint(e.(map[string]any)["id"]))
		}
		next, _ := page["next_cursor"].(string)
		if next == "" {
			return ids
		}
		cursor = next
	}
}

func containsRune(s string, r rune) bool {
	for _, c := range s {
		if c == r {
			return true
		}
	}
	return false
}

// distinct fails unless ids holds want entries, none twice.
func distinct(t *testing.T, what string, ids []string, want int) {
	t.Helper()
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("%s: %s listed twice", what, id)
		}
		seen[id] = true
	}
	if len(ids) != want {
		t.Fatalf("%s: %d listed, want %d", what, len(ids), want)
	}
}

// TestPagination: every list pages with limit and an opaque cursor, with
// no silent cap: 1,234 threads listed completely by following the
// cursors, none twice; a thread's messages, facts, experiences, research
// topics and fails too. Limits out of range and a forged cursor are 400.
func TestPagination(t *testing.T) {
	s := mustStack(t, nil, turn.Config{})
	ctx := context.Background()
	_, err := s.pool.Exec(ctx, `INSERT INTO threads (tenant_id, user_id, id, title, created_at, updated_at)
SELECT $1, $2, gen_random_uuid(), 'thread ' || i, now(), now() - make_interval(secs => i % 97) FROM generate_series(1, 1234) i`,
		s.scope.TenantID, s.scope.UserID)
	if err != nil {
		t.Fatal(err)
	}
	distinct(t, "threads", s.listAll(t, "/api/v1/threads", "threads", 100), 1234)
	distinct(t, "threads by 500", s.listAll(t, "/api/v1/threads", "threads", 500), 1234)
	var first struct{ Threads []any }
	s.do(t, "GET", "/api/v1/threads", "", &first)
	if len(first.Threads) != 50 {
		t.Fatalf("the default page holds %d threads, want 50", len(first.Threads))
	}

	thread := s.mustThread(t)
	msgs := make([]map[string]any, 130)
	for i := range msgs {
		msgs[i] = map[string]any{"role": "user", "content": fmt.Sprintf("note %d", i)}
	}
	s.do(t, "POST", "/api/v1/threads/"+thread+"/messages/import", jsonBody(map[string]any{"messages": msgs}), nil)
	distinct(t, "messages", s.listAll(t, "/api/v1/threads/"+thread+"/messages", "messages", 7), 130)
	subjects := []string{"oak flooring prices", "tax on medical services", "river barge schedules", "goat cheese aging",
		"solar panel tariffs", "violin string gauges", "alpine hut bookings", "copper wire recycling", "sourdough starters",
		"typhoon insurance", "chess opening theory", "bamboo scaffolding"}
	for i, subject := range subjects {
		s.do(t, "POST", "/api/v1/facts", fmt.Sprintf(`{"scope":"user","text":"The user's fact number %d."}`, i), nil)
		s.do(t, "POST", "/api/v1/experiences", fmt.Sprintf(`{"level":2,"topic":"topic %d","title":"title %d","note":"A note about subject %d of %d."}`, i, i, i*7919, i), nil)
		s.do(t, "POST", "/api/v1/research/topics", fmt.Sprintf(`{"topic":%q}`, subject), nil)
	}
	distinct(t, "facts", s.listAll(t, "/api/v1/facts", "facts", 5), 12)
	distinct(t, "experiences", s.listAll(t, "/api/v1/experiences?level=2", "experiences", 5), 12)
	distinct(t, "topics", s.listAll(t, "/api/v1/research/topics", "topics", 5), 12)
	distinct(t, "fails", s.listAll(t, "/api/v1/research/fails", "fails", 5), 0)
	distinct(t, "articles", s.listAll(t, "/api/v1/research/articles", "articles", 5), 0)

	for _, q := range []string{"limit=0", "limit=501", "limit=x", "cursor=not-a-cursor", "cursor=eyJpIjotMX0"} {
		var e struct{ Error string }
		if code := s.do(t, "GET", "/api/v1/threads?"+q, "", &e); code != http.StatusBadRequest || e.Error == "" {
			t.Fatalf("%s: %d %q", q, code, e.Error)
		}
	}
}
