package likbez_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"yakor"
	"yakor/account"
	"yakor/likbez"
	"yakor/llm"
	"yakor/mnemos"
	"yakor/postgres/pgtest"
)

const article = `<html><head><title>When VAT does not apply</title></head><body>
<nav><a href="/">Home</a> <a href="/tax">Tax</a> <a href="/login">Log in</a></nav>
<div class="cookie">We use cookies to improve your experience. Accept all cookies.</div>
<article><h1>When VAT does not apply</h1>
<p>Exports of goods to customers outside the VAT area are zero-rated: the seller charges 0% VAT but still reports the sale.</p>
<p>Intra-community supplies to a VAT-registered business in another member state are exempt when the buyer's VAT number is valid.</p>
<p>Financial services, insurance and education are exempt from VAT, so no VAT is charged and input VAT cannot be reclaimed.</p>
<p>Small businesses under the registration threshold of 85,000 a year do not charge VAT at all.</p>
</article>
<footer>Copyright 2026 Tax Portal. All rights reserved. Privacy policy. Terms.</footer>
<script>var tracking = "VAT does not apply tracking pixel";</script>
</body></html>`

// web is the internet of a test: a SearXNG instance and the pages its
// results point at, among them a slow one, a huge one and a redirect loop.
type web struct {
	searx, pages *httptest.Server
	hits         atomic.Int32 // page requests
	block        chan struct{}
	results      func(pages string) []map[string]string
}

func newWeb(t *testing.T) *web {
	w := &web{block: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("/vat", func(rw http.ResponseWriter, r *http.Request) {
		w.hits.Add(1)
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(rw, article)
	})
	mux.HandleFunc("/slow", func(rw http.ResponseWriter, r *http.Request) {
		w.hits.Add(1)
		select {
		case <-w.block:
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/huge", func(rw http.ResponseWriter, r *http.Request) {
		w.hits.Add(1)
		rw.Header().Set("Content-Type", "text/html")
		fmt.Fprint(rw, "<html><body><p>"+strings.Repeat("VAT does not apply to exports. ", 200_000)+"</p></body></html>")
	})
	mux.HandleFunc("/loop", func(rw http.ResponseWriter, r *http.Request) {
		w.hits.Add(1)
		http.Redirect(rw, r, "/loop", http.StatusFound)
	})
	mux.HandleFunc("/exempt", func(rw http.ResponseWriter, r *http.Request) {
		w.hits.Add(1)
		rw.Header().Set("Content-Type", "text/html")
		fmt.Fprint(rw, strings.Replace(article, "zero-rated", "exempt from VAT by law", 1))
	})
	w.pages = httptest.NewServer(mux)
	t.Cleanup(func() { w.pages.Close() })
	w.results = func(pages string) []map[string]string {
		return []map[string]string{
			{"url": pages + "/vat", "title": "VAT: when it does not apply"},
			{"url": pages + "/slow", "title": "Slow"},
			{"url": pages + "/huge", "title": "Huge"},
			{"url": pages + "/loop", "title": "Loop"},
			{"url": pages + "/exempt", "title": "Exempt supplies"},
		}
	}
	w.searx = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(rw).Encode(map[string]any{"query": r.URL.Query().Get("q"), "results": w.results(w.pages.URL)})
	}))
	t.Cleanup(w.searx.Close)
	return w
}

type fixture struct {
	pool   *pgxpool.Pool
	scope  yakor.Scope
	memory *mnemos.Store
}

func newFixture(t *testing.T) *fixture {
	pool := pgtest.New(t)
	scope, err := account.NewStore(pool).CreateTenantUser(context.Background(), "t")
	if err != nil {
		t.Fatal(err)
	}
	log := pgtest.Logger(t)
	return &fixture{pool: pool, scope: scope, memory: mnemos.NewStore(pool, mnemos.NewSpace(pool, llm.NewOffline(), log), mnemos.Config{}, log, nil)}
}

func (f *fixture) service(t *testing.T, source likbez.Source, fc likbez.FetchConfig) *likbez.Service {
	return likbez.New(f.pool, mnemos.NewTopicQueue(f.pool, f.pool), source, likbez.NewFetcher(fc), nil, f.memory, likbez.Config{Backoff: time.Minute}, pgtest.Logger(t), nil)
}

func (f *fixture) count(t *testing.T, q string) int {
	t.Helper()
	var n int
	if err := f.pool.QueryRow(context.Background(), q, f.scope.TenantID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRun: a topic becomes summarized, stored and indexed articles; the
// slow page times out, the huge one and the redirect loop are refused, and
// none of it stops the run.
func TestRun(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	w := newWeb(t)
	topic, _, err := f.memory.AddTopic(ctx, f.scope, "when VAT does not apply")
	if err != nil {
		t.Fatal(err)
	}
	svc := f.service(t, likbez.NewSearXNG(w.searx.URL, nil), likbez.FetchConfig{Timeout: 500 * time.Millisecond, MaxBytes: 256 << 10, MaxRedirects: 3, AllowPrivate: true})
	start := time.Now()
	r, err := svc.Run(ctx, likbez.TriggerCLI, nil)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("the run took %v: the slow page was not cut off", took)
	}
	if r.Done != 1 || r.Failed != 0 || r.Articles != 2 || len(r.Topics) != 1 || len(r.Topics[0].Errors) != 3 {
		t.Fatalf("report %+v", r)
	}
	errs := strings.Join(r.Topics[0].Errors, "\n")
	for _, want := range []string{"/slow", "/huge", "/loop", "redirect"} {
		if !strings.Contains(errs, want) {
			t.Errorf("errors lack %q:\n%s", want, errs)
		}
	}
	arts, err := svc.Articles(ctx, f.scope, topic.ID, yakor.Page{})
	if err != nil || len(arts) != 2 {
		t.Fatalf("articles %+v %v", arts, err)
	}
	for _, a := range arts {
		if !strings.Contains(a.Note, "Source: "+a.URL) || strings.Contains(a.Note, "cookies") || strings.Contains(a.Note, "tracking") || a.ExperienceID == 0 {
			t.Errorf("article %+v", a)
		}
	}
	if !strings.Contains(arts[1].Note, "zero-rated: the seller charges 0% VAT") {
		t.Errorf("the note lost the facts: %q", arts[1].Note)
	}
	if n := f.count(t, `SELECT count(*) FROM experiences WHERE tenant_id = $1 AND level = 2 AND source = 'research'`); n != 2 {
		t.Fatalf("%d notes indexed, want 2", n)
	}
	ts, _ := f.memory.Topics(ctx, f.scope, "", yakor.Page{})
	if ts[0].Status != "done" || ts[0].Attempts != 1 {
		t.Fatalf("topic %+v", ts[0])
	}
	// Done topics are not studied again.
	if r, err := svc.Run(ctx, likbez.TriggerCLI, nil); err != nil || len(r.Topics) != 0 {
		t.Fatalf("second run %+v %v", r, err)
	}
	// The note comes back for a question on the topic.
	rec, err := f.memory.Recall(ctx, f.scope, "Does VAT apply when I export goods?", "en")
	if err != nil || !strings.Contains(rec.Text, "zero-rated") {
		t.Fatalf("recall %q %v", rec.Text, err)
	}
}

// TestRunCutOff: a run cut off in the middle of a topic leaves it
// retryable; the next run completes it without storing an article twice.
func TestRunCutOff(t *testing.T) {
	f := newFixture(t)
	w := newWeb(t)
	if _, _, err := f.memory.AddTopic(context.Background(), f.scope, "when VAT does not apply"); err != nil {
		t.Fatal(err)
	}
	svc := f.service(t, likbez.NewSearXNG(w.searx.URL, nil), likbez.FetchConfig{Timeout: time.Minute, AllowPrivate: true})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for w.hits.Load() < 2 { // the first page is read, the slow one hangs
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	if _, err := svc.Run(ctx, likbez.TriggerCLI, nil); err == nil {
		t.Fatal("a cut-off run reported success")
	}
	if n := f.count(t, `SELECT count(*) FROM research_articles WHERE tenant_id = $1`); n != 1 {
		t.Fatalf("%d articles stored before the cut, want 1", n)
	}
	if n := f.count(t, `SELECT count(*) FROM research_topics WHERE tenant_id = $1 AND status = 'running'`); n != 1 {
		t.Fatalf("the cut-off topic is not left running")
	}
	close(w.block) // the slow page answers (empty) from now on
	r, err := svc.Run(context.Background(), likbez.TriggerCLI, nil)
	if err != nil || r.Done != 1 {
		t.Fatalf("second run %+v %v", r, err)
	}
	if n := f.count(t, `SELECT count(*) FROM research_articles WHERE tenant_id = $1`); n != 2 {
		t.Fatalf("%d articles, want 2 (no duplicates)", n)
	}
	if n := f.count(t, `SELECT count(*) FROM experiences WHERE tenant_id = $1 AND level = 2`); n != 2 {
		t.Fatalf("%d notes indexed, want 2", n)
	}
}

// TestRunNoSource: without SearXNG, topics stay pending and the run says
// why; without results worth reading, a topic fails with the reason and a
// next attempt, and no private address is fetched.
func TestRunNoSource(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	if _, _, err := f.memory.AddTopic(ctx, f.scope, "when VAT does not apply"); err != nil {
		t.Fatal(err)
	}
	r, err := f.service(t, nil, likbez.FetchConfig{}).Run(ctx, likbez.TriggerCLI, nil)
	if err != nil || r.Message != likbez.NoSource || r.Pending != 1 || len(r.Topics) != 0 {
		t.Fatalf("run without a source: %+v %v", r, err)
	}
	if n := f.count(t, `SELECT count(*) FROM research_topics WHERE tenant_id = $1 AND status = 'pending' AND attempts = 0`); n != 1 {
		t.Fatal("the topic did not stay pending")
	}

	w := newWeb(t)
	w.results = func(pages string) []map[string]string {
		return []map[string]string{{"url": pages + "/vat"}, {"url": "http://169.254.169.254/latest/meta-data/"}, {"url": "http://127.0.0.1:9/x"}}
	}
	start := time.Now()
	r, err = f.service(t, likbez.NewSearXNG(w.searx.URL, nil), likbez.FetchConfig{Timeout: 5 * time.Second}).Run(ctx, likbez.TriggerCLI, nil)
	if err != nil || r.Failed != 1 || w.hits.Load() != 0 || time.Since(start) > 4*time.Second {
		t.Fatalf("run against private addresses: %+v %v, %d pages fetched", r, err, w.hits.Load())
	}
	ts, _ := f.memory.Topics(ctx, f.scope, "", yakor.Page{})
	if ts[0].Status != "failed" || !strings.Contains(ts[0].LastError, "no usable article") || ts[0].NextAttemptAt == nil || !ts[0].NextAttemptAt.After(time.Now()) {
		t.Fatalf("failed topic %+v", ts[0])
	}
	if r, err := f.service(t, likbez.NewSearXNG(w.searx.URL, nil), likbez.FetchConfig{}).Run(ctx, likbez.TriggerCLI, nil); err != nil || len(r.Topics) != 0 {
		t.Fatalf("a topic was retried before its time: %+v %v", r, err)
	}
}

// TestRunOnce: while a run goes on, another is refused, on any instance.
func TestRunOnce(t *testing.T) {
	f := newFixture(t)
	w := newWeb(t)
	if _, _, err := f.memory.AddTopic(context.Background(), f.scope, "when VAT does not apply"); err != nil {
		t.Fatal(err)
	}
	first := f.service(t, likbez.NewSearXNG(w.searx.URL, nil), likbez.FetchConfig{Timeout: time.Minute, AllowPrivate: true})
	done := make(chan error, 1)
	go func() {
		_, err := first.Run(context.Background(), likbez.TriggerCLI, nil)
		done <- err
	}()
	for w.hits.Load() < 2 { // the first run hangs on the slow page
		time.Sleep(5 * time.Millisecond)
	}
	other := f.service(t, likbez.NewSearXNG(w.searx.URL, nil), likbez.FetchConfig{AllowPrivate: true})
	if _, err := other.Run(context.Background(), likbez.TriggerAPI, nil); !errors.Is(err, likbez.ErrRunning) {
		t.Fatalf("a second run at the same time: %v, want ErrRunning", err)
	}
	st, err := other.Status(context.Background(), f.scope)
	if err != nil || !st.Running || st.Topics["running"] != 1 {
		t.Fatalf("status during the run: %+v %v", st, err)
	}
	close(w.block)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if st, _ := other.Status(context.Background(), f.scope); st.Running || st.LastRun == nil || st.LastRun.Status != "done" {
		t.Fatalf("status after the run: %+v", st)
	}
}
