package web_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"yakor/turn"
)

// TestUIServed: the web chat is served at / and at its page paths with a
// strict content security policy; the API keeps its JSON 404s.
func TestUIServed(t *testing.T) {
	s := mustStack(t, nil, turn.Config{})
	for _, path := range []string{"/", "/research", "/threads/abc"} {
		resp, err := http.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		csp := resp.Header.Get("Content-Security-Policy")
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "<html") || !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
			t.Fatalf("GET %s: %d, CSP %q, body %.80q", path, resp.StatusCode, csp, body)
		}
	}
	for _, path := range []string{"/api/v1/nothing", "/assets/missing.js"} {
		resp, err := http.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("GET %s: %d, want 404", path, resp.StatusCode)
		}
	}
}

// TestThreadRenameAndFind: a thread is renamed, found by part of its title
// in any case (wildcards are literal), and a bad title is refused.
func TestThreadRenameAndFind(t *testing.T) {
	s := mustStack(t, nil, turn.Config{})
	id := s.mustThread(t)
	other := s.mustThread(t)
	var th struct{ Title string }
	if code := s.do(t, "PATCH", "/api/v1/threads/"+id, `{"title":"Кухня: 100% дуб"}`, &th); code != http.StatusOK || th.Title != "Кухня: 100% дуб" {
		t.Fatalf("rename: %d %+v", code, th)
	}
	for q, want := range map[string]int{"кухня": 1, "КУХНЯ": 1, "100%25": 1, "%25": 1, "_": 0, "t": 1} {
		var out struct{ Threads []struct{ ID string } }
		s.do(t, "GET", "/api/v1/threads?q="+q, "", &out)
		if len(out.Threads) != want {
			t.Errorf("q=%s: %d threads, want %d", q, len(out.Threads), want)
		}
	}
	for _, body := range []string{`{}`, `{"title":"` + strings.Repeat("x", 300) + `"}`, `{"title":"a\u0000b"}`} {
		if code := s.do(t, "PATCH", "/api/v1/threads/"+other, body, nil); code != http.StatusBadRequest {
			t.Errorf("rename with %.30s: %d, want 400", body, code)
		}
	}
	if code := s.do(t, "PATCH", "/api/v1/threads/00000000-0000-0000-0000-000000000000", `{"title":"x"}`, nil); code != http.StatusNotFound {
		t.Errorf("rename of an unknown thread: %d", code)
	}
	var info struct{ Offline bool }
	if code := s.do(t, "GET", "/api/v1/info", "", &info); code != http.StatusOK {
		t.Fatalf("info: %d", code)
	}
}
