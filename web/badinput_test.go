package web_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"yakor/account"
	"yakor/app/apptest"
	"yakor/llm"
	"yakor/turn"

	"github.com/jackc/pgx/v5"
)

// metricsBody reads /metrics with key ("" for none).
func metricsBody(t *testing.T, url, key string) (int, string) {
	t.Helper()
	a := apptest.Call(t, url, key, "GET", "/metrics", "", nil)
	return a.Status, string(a.Body)
}

// TestMetricsBounded: requests with made-up methods and paths count under
// "other" and "unmatched", so they cannot grow the metrics.
func TestMetricsBounded(t *testing.T) {
	s := mustStack(t, nil, turn.Config{})
	for i := range 200 {
		req, _ := http.NewRequest(fmt.Sprintf("M%03d", i), s.URL+fmt.Sprintf("/x/%d", i), nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	_, body := metricsBody(t, s.URL, "")
	series := 0
	for line := range strings.Lines(body) {
		if strings.HasPrefix(line, "yakor_http_requests_total{") {
			series++
			if strings.Contains(line, `method="M`) || strings.Contains(line, "/x/") {
				t.Errorf("a made-up method or path became a label: %s", line)
			}
		}
	}
	if series == 0 || series > 10 {
		t.Errorf("%d request series after 200 made-up requests", series)
	}
	if !strings.Contains(body, `route="unmatched"`) || !strings.Contains(body, `method="other"`) {
		t.Errorf("no unmatched/other series:\n%s", body)
	}
}

// TestMetricsNeedAdmin: once keys exist, /metrics needs an admin key; with
// --metrics-addr they are served there, without a key, and not on the main
// address.
func TestMetricsNeedAdmin(t *testing.T) {
	s := newStack(t, stackOptions{keys: true})
	_, user := mustKey(t, s, account.NewKey{Tenant: "acme", User: "ann"})
	_, admin := mustKey(t, s, account.NewKey{Tenant: "acme", User: "ops", Role: account.RoleAdmin})
	time.Sleep(2100 * time.Millisecond) // the server checks for keys every 2 s
	for key, want := range map[string]int{"": 401, user: 403, admin: 200} {
		if code, body := metricsBody(t, s.URL, key); code != want || want == 200 && !strings.Contains(body, "# HELP") {
			t.Errorf("/metrics with key %.6q: %d, want %d", key, code, want)
		}
	}

	cfg := apptest.Config()
	cfg.MetricsAddr = "127.0.0.1:0"
	other := apptest.New(t, cfg)
	if code, body := metricsBody(t, other.URL, ""); strings.Contains(body, "# HELP") {
		t.Errorf("/metrics on the main address with --metrics-addr: %d, the metrics", code)
	}
	resp, err := http.Get("http://" + other.App.MetricsAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "yakor_http_requests_total") {
		t.Errorf("metrics on --metrics-addr: %d", resp.StatusCode)
	}
}

// TestNULRefused: a NUL in a project, a key's name or user, or an end
// user's id is 400 naming it (on /v1 with the param), and writes nothing.
func TestNULRefused(t *testing.T) {
	s := mustStack(t, nil, turn.Config{})
	before := s.counts(t)
	for _, tc := range []struct{ path, body, says string }{
		{"/api/v1/threads", `{"title":"t","project":"a\u0000b"}`, "project name"},
		{"/api/v1/keys", `{"name":"a\u0000b"}`, "name"},
		{"/api/v1/keys", `{"name":"k","user":"a\u0000b"}`, "user"},
	} {
		var e struct{ Error string }
		if code := s.do(t, "POST", tc.path, tc.body, &e); code != http.StatusBadRequest || !strings.Contains(e.Error, tc.says) {
			t.Errorf("POST %s %s: %d %q, want 400 naming %s", tc.path, tc.body, code, e.Error, tc.says)
		}
	}
	r := s.complete(t, map[string]any{"user": "a\x00b", "messages": []any{user("hi")}})
	if e := r.openAIError(t, http.StatusBadRequest); e.Param == nil || *e.Param != "user" {
		t.Errorf("/v1 user with a NUL: %+v", e)
	}
	if after := s.counts(t); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("a refused request wrote: %v -> %v", before, after)
	}
	var keys struct{ Keys []struct{ ID string } }
	if s.do(t, "GET", "/api/v1/keys", "", &keys); len(keys.Keys) != 0 {
		t.Errorf("a refused request made a key: %+v", keys)
	}
}

// TestMaxImportMessages: a /v1 request that would make a conversation
// with more earlier messages than --max-import-messages (1,000) is 400
// naming messages, and writes nothing; at the limit it imports them all;
// a conversation Yakor holds ignores a client's long history.
func TestMaxImportMessages(t *testing.T) {
	s := mustStack(t, nil, turn.Config{})
	history := func(n int) []any {
		var out []any
		for i := range n {
			if i%2 == 0 {
				out = append(out, user(fmt.Sprintf("note %d", i)))
			} else {
				out = append(out, assistant(fmt.Sprintf("ok %d", i)))
			}
		}
		return append(out, user("What was the first note?"))
	}
	before := s.counts(t)
	r := s.complete(t, map[string]any{"prompt_cache_key": "long", "messages": history(1001)})
	if e := r.openAIError(t, http.StatusBadRequest); e.Param == nil || *e.Param != "messages" || !strings.Contains(e.Message, "1000") {
		t.Fatalf("1,001 earlier messages: %+v", e)
	}
	if after := s.counts(t); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("the refused request wrote: %v -> %v", before, after)
	}
	ok := s.complete(t, map[string]any{"prompt_cache_key": "long", "messages": history(1000)})
	ok.completion(t)
	thread, _ := ok.thread()
	if n := len(s.storedMessages(t, thread)); n != 1002 {
		t.Fatalf("%d messages stored, want the 1,000 imported, the question and the reply", n)
	}
	again := s.complete(t, map[string]any{"prompt_cache_key": "long", "messages": history(1501)})
	again.completion(t)
}

// TestReadOnlyDatabase: with the database read-only, a key still reads
// (its last use is recorded off the request path, and not at all here),
// a write is 503 saying the database is read-only, and /readyz says so.
func TestReadOnlyDatabase(t *testing.T) {
	ctx := context.Background()
	s := newStack(t, stackOptions{keys: true})
	_, key := mustKey(t, s, account.NewKey{Tenant: "acme", User: "ann"})
	time.Sleep(2100 * time.Millisecond) // the server checks for keys every 2 s
	var th struct{ ID string }
	if a := apptest.Call(t, s.URL, key, "POST", "/api/v1/threads", `{"title":"before"}`, &th); a.Status != http.StatusCreated {
		t.Fatalf("thread: %d", a.Status)
	}
	var db string
	if err := s.pool.QueryRow(ctx, `SELECT current_database()`).Scan(&db); err != nil {
		t.Fatal(err)
	}
	setReadOnly := func(on bool) {
		t.Helper()
		q := `ALTER DATABASE ` + pgx.Identifier{db}.Sanitize() + ` SET default_transaction_read_only = ` + map[bool]string{true: "on", false: "off"}[on]
		conn, err := s.pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = conn.Exec(ctx, `SET default_transaction_read_only = off`)
		if err == nil {
			_, err = conn.Exec(ctx, q)
		}
		conn.Release()
		if err != nil {
			t.Fatal(err)
		}
		s.pool.Reset() // new connections take the database's setting
		s.svc.Pool().Reset()
	}
	setReadOnly(true)
	t.Cleanup(func() { setReadOnly(false) })

	for _, path := range []string{"/api/v1/threads", "/api/v1/threads/" + th.ID, "/api/v1/threads/" + th.ID + "/messages", "/api/v1/facts"} {
		if a := apptest.Call(t, s.URL, key, "GET", path, "", nil); a.Status != http.StatusOK {
			t.Errorf("GET %s on a read-only database: %d %s", path, a.Status, a.Body)
		}
	}
	var e struct{ Error string }
	if a := apptest.Call(t, s.URL, key, "POST", "/api/v1/threads", `{"title":"after"}`, &e); a.Status != http.StatusServiceUnavailable || !strings.Contains(e.Error, "read-only") {
		t.Errorf("a write on a read-only database: %d %q", a.Status, e.Error)
	}
	var ready struct {
		Status string
		Writes bool
	}
	if a := apptest.Call(t, s.URL, "", "GET", "/readyz", "", &ready); a.Status != http.StatusOK || ready.Status != "read-only" || ready.Writes {
		t.Errorf("/readyz on a read-only database: %d %+v", a.Status, ready)
	}
}

// TestModelAddressHidden: when the model server refuses the connection or
// fails, the client is told so without its address; the log keeps it.
func TestModelAddressHidden(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: connections are refused
	model := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: "http://" + addr + "/v1", Model: "m-1", Timeout: 2 * time.Second, MaxRetries: 0})
	s := mustStack(t, model, turn.Config{})
	thread := s.mustThread(t)
	var e struct{ Error string }
	if code := s.do(t, "POST", "/api/v1/threads/"+thread+"/messages", `{"content":"hi"}`, &e); code != http.StatusBadGateway ||
		strings.Contains(e.Error, addr) || !strings.Contains(e.Error, "could not reach the model server") {
		t.Errorf("native: %d %q", code, e.Error)
	}
	r := s.complete(t, map[string]any{"messages": []any{user("hi")}})
	if r.code != http.StatusBadGateway || strings.Contains(r.body, addr) || strings.Contains(r.body, strings.Split(addr, ":")[1]) {
		t.Errorf("/v1: %d %s", r.code, r.body)
	}
	for _, tr := range s.turnsOf(t, thread) {
		if tr.Error == "" || strings.Contains(tr.Error, addr) {
			t.Errorf("the turn's recorded error: %q", tr.Error)
		}
	}
}
