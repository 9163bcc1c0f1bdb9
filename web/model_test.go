package web_test

import (
	"context"
	"net/http"
	"testing"

	"yakor/mnemos"
	"yakor/turn"
)

type trace struct {
	Status         string
	Error          string
	ReplyMessageID int64 `json:"reply_message_id"`
	UserMessageID  int64 `json:"user_message_id"`
	Model          string
	Provider       string
	Layers         []struct {
		Name  string
		Chars int
		Items int
	}
	Grades   []mnemos.Grade
	Timings  map[string]float64 `json:"timings_ms"`
	Searches []struct {
		Query  string
		HitIDs []int64 `json:"hit_ids"`
	}
}

func (s *stack) turnsOf(tb testing.TB, thread string) []trace {
	tb.Helper()
	rows, err := s.pool.Query(context.Background(), `SELECT id::text FROM turns WHERE thread_id = $1 ORDER BY created_at`, thread)
	if err != nil {
		tb.Fatal(err)
	}
	var ids []string
	for rows.Next() {
		var id string
		_ = rows.Scan(&id)
		ids = append(ids, id)
	}
	rows.Close()
	var out []trace
	for _, id := range ids {
		var tr trace
		if code := s.do(tb, "GET", "/api/v1/turns/"+id, "", &tr); code != http.StatusOK {
			tb.Fatalf("trace %s: %d", id, code)
		}
		out = append(out, tr)
	}
	return out
}

// TestModelServer runs a turn against an OpenAI-compatible server and
// traces it (its faults: TestModelServerFaults).
func TestModelServer(t *testing.T) {
	fake := newFakeOpenAI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		streamChunks(w, []string{"The total ", "is 4650."}, false)
	})
	s := mustStack(t, fake.model(), turn.Config{})
	thread := s.mustThread(t)
	var r turnResp
	if code := s.do(t, "POST", "/api/v1/threads/"+thread+"/messages", `{"content":"board 3400 plus panel 1250?"}`, &r); code != http.StatusOK {
		t.Fatalf("status %d: %s", code, r.Error)
	}
	if r.Reply.Content != "The total is 4650." {
		t.Fatalf("reply %q", r.Reply.Content)
	}
	trs := s.turnsOf(t, thread)
	tr := trs[len(trs)-1]
	if tr.Status != "ok" || tr.Provider != "openai" || tr.ReplyMessageID != r.Reply.ID || len(tr.Layers) != 6 || tr.Timings["model"] <= 0 {
		t.Fatalf("trace %+v", tr)
	}
}
