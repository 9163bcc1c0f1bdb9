package likbez

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

const searxngAnswerJSON = `{"query": "vat exports", "number_of_results": 0, "results": [
 {"url": "https://a.example/vat", "title": " VAT on exports ", "content": "Exports are zero-rated.", "engine": "duckduckgo"},
 {"url": "https://a.example/vat#section", "title": "dup with fragment", "content": "", "engine": "bing"},
 {"url": "ftp://files.example/vat.txt", "title": "ftp", "content": "", "engine": "bing"},
 {"url": "javascript:alert(1)", "title": "js", "content": "", "engine": "bing"},
 {"url": "", "title": "empty", "content": "", "engine": "bing"},
 {"url": "http://b.example/guide", "title": "Guide", "content": "A guide.", "engine": "google"},
 {"url": "https://A.EXAMPLE/vat", "title": "dup with case", "content": "", "engine": "google"},
 {"url": "https://c.example/faq", "title": "FAQ", "content": "Questions.", "engine": "google"}
]}`

// searxngServer serves body with status under any path, recording the last request.
func searxngServer(t *testing.T, status int, body string, last *atomic.Pointer[http.Request]) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if last != nil {
			last.Store(r)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestSearXNGResults(t *testing.T) {
	var last atomic.Pointer[http.Request]
	srv := searxngServer(t, 200, searxngAnswerJSON, &last)
	s := NewSearXNG(srv.URL, nil)

	got, err := s.Search(context.Background(), "vat exports", 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []Result{
		{URL: "https://a.example/vat", Title: "VAT on exports", Content: "Exports are zero-rated."},
		{URL: "http://b.example/guide", Title: "Guide", Content: "A guide."},
		{URL: "https://c.example/faq", Title: "FAQ", Content: "Questions."},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d results %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("result %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	r := last.Load()
	if r.URL.Path != "/search" {
		t.Errorf("path = %q, want /search", r.URL.Path)
	}
	if ua := r.Header.Get("User-Agent"); !strings.HasPrefix(ua, "Yakor-likbez/") {
		t.Errorf("User-Agent = %q", ua)
	}

	two, err := s.Search(context.Background(), "vat exports", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(two) != 2 || two[1].URL != "http://b.example/guide" {
		t.Errorf("n=2: got %+v", two)
	}
	all, err := s.Search(context.Background(), "vat exports", 0)
	if err != nil || len(all) != 3 {
		t.Errorf("n=0: got %d results, err %v; want all 3", len(all), err)
	}
}

func TestSearXNGQueryEscaping(t *testing.T) {
	var last atomic.Pointer[http.Request]
	srv := searxngServer(t, 200, `{"query":"x","results":[]}`, &last)
	query := `НДС & "exports" 0% ?a=b#c/d+e`
	got, err := NewSearXNG(srv.URL+"/", nil).Search(context.Background(), query, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("got %+v, want none", got)
	}
	r := last.Load()
	q := r.URL.Query()
	if q.Get("q") != query || q.Get("format") != "json" || len(q) != 2 {
		t.Errorf("query parameters = %v (raw %q), want q=%q and format=json", q, r.URL.RawQuery, query)
	}
	if r.URL.Path != "/search" {
		t.Errorf("path = %q, want /search (base ending in /)", r.URL.Path)
	}
}

func TestSearXNGBasePathPrefix(t *testing.T) {
	for _, base := range []string{"/searx", "/searx/"} {
		var last atomic.Pointer[http.Request]
		srv := searxngServer(t, 200, searxngAnswerJSON, &last)
		if _, err := NewSearXNG(srv.URL+base, srv.Client()).Search(context.Background(), "q", 1); err != nil {
			t.Fatalf("base %q: %v", base, err)
		}
		if p := last.Load().URL.Path; p != "/searx/search" {
			t.Errorf("base %q: path = %q, want /searx/search", base, p)
		}
	}
}

func TestSearXNGErrors(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   string
		want   []string
	}{
		{"forbidden", 403, "<html>403 Forbidden</html>", []string{"403", "search.formats", "settings.yml", "403 Forbidden</html>"}},
		{"server error", 500, strings.Repeat("x", 1000), []string{"500", strings.Repeat("x", 200)}},
		{"bad json", 200, `<html>not json</html>`, []string{"bad JSON"}},
		{"truncated json", 200, `{"results": [`, []string{"bad JSON"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := searxngServer(t, c.status, c.body, nil)
			_, err := NewSearXNG(srv.URL, nil).Search(context.Background(), "q", 5)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if strings.Contains(err.Error(), strings.Repeat("x", 201)) {
				t.Errorf("error quotes more than 200 bytes of the body: %q", err)
			}
		})
	}
}

func TestSearXNGBodyLimit(t *testing.T) {
	big := `{"results": [], "pad": "` + strings.Repeat("a", searxngMaxBody) + `"}`
	srv := searxngServer(t, 200, big, nil)
	_, err := NewSearXNG(srv.URL, nil).Search(context.Background(), "q", 5)
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("err = %v, want a size error", err)
	}
}

func TestSearXNGBadConfig(t *testing.T) {
	for _, base := range []string{"", "ftp://searx.example", "searx:8080"} {
		if _, err := NewSearXNG(base, nil).Search(context.Background(), "q", 5); err == nil {
			t.Errorf("base %q: no error", base)
		}
	}
	if _, err := NewSearXNG("http://127.0.0.1:1", nil).Search(context.Background(), "  ", 5); err == nil {
		t.Error("empty query: no error")
	}
}
