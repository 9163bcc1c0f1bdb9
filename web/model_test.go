package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

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

// TestModelServer runs turns against an OpenAI-compatible server that
// answers, fails, or breaks its stream.
func TestModelServer(t *testing.T) {
	var mode string
	fake := newFakeOpenAI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch mode {
		case "ok":
			streamChunks(w, []string{"The total ", "is 4650."}, false)
		case "500":
			http.Error(w, `{"error":{"message":"upstream exploded","type":"server_error"}}`, http.StatusInternalServerError)
		case "slow":
			time.Sleep(3 * time.Second)
		case "cut":
			streamChunks(w, []string{"The total ", "is"}, true)
		}
	})
	s := mustStack(t, fake.model(), turn.Config{})
	thread := s.mustThread(t)
	path := "/api/v1/threads/" + thread + "/messages"

	t.Run("OK", func(t *testing.T) {
		mode = "ok"
		var r turnResp
		if code := s.do(t, "POST", path, `{"content":"board 3400 plus panel 1250?"}`, &r); code != http.StatusOK {
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
	})

	for _, tc := range []struct {
		mode   string
		status int
		says   string
	}{
		{"500", http.StatusBadGateway, "upstream exploded"},
		{"slow", http.StatusGatewayTimeout, "did not answer in time"},
	} {
		t.Run("Fails"+tc.mode, func(t *testing.T) {
			mode = tc.mode
			before := s.counts(t)
			var r turnResp
			code := s.do(t, "POST", path, `{"content":"and with delivery?","client_id":"retry-`+tc.mode+`"}`, &r)
			if code != tc.status || !strings.Contains(r.Error, tc.says) || !strings.Contains(r.Error, fake.URL) {
				t.Fatalf("status %d, error %q", code, r.Error)
			}
			after := s.counts(t)
			if after["messages"] != before["messages"]+1 {
				t.Fatalf("the user's message was not kept: %d -> %d messages", before["messages"], after["messages"])
			}
			trs := s.turnsOf(t, thread)
			if tr := trs[len(trs)-1]; tr.Status != "failed" || !strings.Contains(tr.Error, tc.says) || tr.ReplyMessageID != 0 {
				t.Fatalf("failed turn recorded as %+v", tr)
			}
			// Sending again (same client id) answers the kept message.
			mode = "ok"
			if code := s.do(t, "POST", path, `{"content":"and with delivery?","client_id":"retry-`+tc.mode+`"}`, &r); code != http.StatusOK {
				t.Fatalf("resend: %d %s", code, r.Error)
			}
			if got := s.counts(t)["messages"]; got != before["messages"]+2 {
				t.Fatalf("after resend %d messages, want %d", got, before["messages"]+2)
			}
		})
	}

	t.Run("BrokenStream", func(t *testing.T) {
		mode = "cut"
		before := s.counts(t)
		code, events := s.stream(t, thread, `{"content":"total again?","client_id":"cut-1"}`)
		if code != http.StatusOK || len(events) < 2 {
			t.Fatalf("status %d, events %v", code, events)
		}
		last := events[len(events)-1]
		if last.name != "error" || !strings.Contains(last.data["error"].(string), "stream broken") {
			t.Fatalf("last event %v", last)
		}
		if events[0].name != "delta" || events[0].data["text"] != "The total " {
			t.Fatalf("first event %v", events[0])
		}
		after := s.counts(t)
		if after["messages"] != before["messages"]+1 {
			t.Fatalf("messages %d -> %d: the user's message must stay and no partial reply be stored", before["messages"], after["messages"])
		}
		trs := s.turnsOf(t, thread)
		if tr := trs[len(trs)-1]; tr.Status != "failed" || !strings.Contains(tr.Error, "stream broken") {
			t.Fatalf("turn %+v", tr)
		}
		mode = "ok"
		code, events = s.stream(t, thread, `{"content":"total again?","client_id":"cut-1"}`)
		if code != http.StatusOK || events[len(events)-1].name != "done" {
			t.Fatalf("resend: %d %v", code, events)
		}
	})
}
