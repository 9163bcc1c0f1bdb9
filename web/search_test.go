package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"yakor/turn"
)

// TestUserMarkerSearchesNothing: a user who types the marker is only
// talking; no search runs and the text is stored as written.
func TestUserMarkerSearchesNothing(t *testing.T) {
	fake := newFakeOpenAI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		streamChunks(w, []string{"I can only answer; I did not search."}, false)
	})
	s := mustStack(t, fake.model(), turn.Config{})
	thread := s.mustThread(t)
	content := "SEARCH_HISTORY: secret price\nplease"
	var r turnResp
	if code := s.do(t, "POST", "/api/v1/threads/"+thread+"/messages", jsonBody(map[string]string{"content": content}), &r); code != http.StatusOK {
		t.Fatalf("send: %d %s", code, r.Error)
	}
	if r.UserMessage.Content != content {
		t.Fatalf("stored %q", r.UserMessage.Content)
	}
	trs := s.turnsOf(t, thread)
	if len(trs[0].Searches) != 0 || fake.n.Load() != 1 {
		t.Fatalf("%d searches, %d model calls", len(trs[0].Searches), fake.n.Load())
	}
}

// TestSearchRoundsBounded: a model that only ever searches gets two
// searches, then a last pass whose marker is dropped; with nothing else
// said, the turn fails plainly.
func TestSearchRoundsBounded(t *testing.T) {
	fake := newFakeOpenAI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		streamChunks(w, []string{fmt.Sprintf("SEARCH_HISTORY: attempt %d\n", n)}, false)
	})
	s := mustStack(t, fake.model(), turn.Config{})
	thread := s.mustThread(t)
	var r turnResp
	code := s.do(t, "POST", "/api/v1/threads/"+thread+"/messages", `{"content":"what was it?"}`, &r)
	if code != http.StatusBadGateway || !strings.Contains(r.Error, "empty reply") {
		t.Fatalf("status %d, error %q", code, r.Error)
	}
	trs := s.turnsOf(t, thread)
	if fake.n.Load() != 3 || len(trs[0].Searches) != 2 || trs[0].Status != "failed" {
		t.Fatalf("%d model calls, %d searches, status %s", fake.n.Load(), len(trs[0].Searches), trs[0].Status)
	}
}

// TestOfflineSearchLoop: with no model configured, the offline model asks
// to search for what the prompt does not show and answers from the hits.
// Anchors are off: their key data would show the price.
func TestOfflineSearchLoop(t *testing.T) {
	s := mustStack(t, nil, turn.Config{WindowChars: 2000, AnchorMode: turn.AnchorOff})
	thread := s.mustThread(t)
	path := "/api/v1/threads/" + thread + "/messages"
	s.do(t, "POST", path, `{"content":"The walnut worktop costs 18750 rubles."}`, nil)
	for i := range 6 {
		s.do(t, "POST", path, jsonBody(map[string]string{"content": fmt.Sprintf("%d %s", i, strings.Repeat("Tell me about installation dates. ", 8))}), nil)
	}
	code, events := s.stream(t, thread, `{"content":"How much was the walnut worktop?"}`)
	if code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	var text strings.Builder
	searched := false
	for _, ev := range events {
		switch ev.name {
		case "search":
			searched = true
		case "delta":
			text.WriteString(ev.data["text"].(string))
		}
	}
	if !searched || !strings.Contains(text.String(), "18750") || strings.Contains(text.String(), "SEARCH_HISTORY") {
		t.Fatalf("searched %v; reply %q", searched, text.String())
	}
}

func TestSearchEndpoint(t *testing.T) {
	s := mustStack(t, nil, turn.Config{})
	thread := s.mustThread(t)
	path := "/api/v1/threads/" + thread
	s.do(t, "POST", path+"/messages", `{"content":"Прайс: ЛДСП 3400 руб"}`, nil)
	var res struct {
		Hits []struct {
			MessageID int64  `json:"message_id"`
			Role      string `json:"role"`
			Content   string `json:"content"`
			CreatedAt string `json:"created_at"`
		}
		Keywords []string
	}
	if code := s.do(t, "GET", path+"/search?q="+url.QueryEscape("прайса лдсп"), "", &res); code != http.StatusOK {
		t.Fatalf("search: %d", code)
	}
	if len(res.Hits) == 0 || res.Hits[0].Content != "Прайс: ЛДСП 3400 руб" || res.Hits[0].Role != "user" || res.Hits[0].CreatedAt == "" {
		t.Fatalf("hits %+v", res.Hits)
	}
	for _, tc := range []struct {
		q      string
		status int
	}{
		{"", 400}, {"%00", 400}, {"%FF", 400}, {"x&limit=0", 400}, {"x&budget=abc", 400},
	} {
		var e struct{ Error string }
		if code := s.do(t, "GET", path+"/search?q="+tc.q, "", &e); code != tc.status || e.Error == "" {
			t.Errorf("q=%s: %d %q", tc.q, code, e.Error)
		}
	}
	var e struct{ Error string }
	if code := s.do(t, "GET", "/api/v1/threads/6f1c1d7e-0000-4000-8000-000000000000/search?q=x", "", &e); code != 404 {
		t.Errorf("unknown thread: %d", code)
	}
}
