package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"yakor/account"
	"yakor/app/apptest"
	"yakor/turn"
)

// call sends a request with key (none when "") and returns the status,
// the body and the Retry-After header.
func (s *stack) call(tb testing.TB, key, method, path, body string) (int, string, string) {
	tb.Helper()
	a := apptest.Call(tb, s.URL, key, method, path, body, nil)
	return a.Status, string(a.Body), a.Header.Get("Retry-After")
}

// must is call with key, failing the test unless the status is want; it
// returns the body.
func (s *stack) must(tb testing.TB, key string, want int, method, path, body string) string {
	tb.Helper()
	code, out, _ := s.call(tb, key, method, path, body)
	if code != want {
		tb.Fatalf("%s %s: %d %s, want %d", method, path, code, out, want)
	}
	return out
}

// bodyID is the first "id" of a JSON body.
func bodyID(tb testing.TB, body string) string {
	tb.Helper()
	m := regexp.MustCompile(`"id":"?([0-9a-f-]+)"?`).FindStringSubmatch(body)
	if m == nil {
		tb.Fatalf("no id in %s", body)
	}
	return m[1]
}

func mustKey(tb testing.TB, s *stack, nk account.NewKey) (account.Key, string) {
	tb.Helper()
	k, secret, err := account.NewStore(s.pool).CreateKey(context.Background(), nk)
	if err != nil {
		tb.Fatal(err)
	}
	return k, secret
}

// TestKeys: once a key exists every request needs one; a revoked or wrong
// key is 401; another tenant's key sees none of the first tenant's data
// (404 on every route that names it); a key over its rate gets 429 with
// Retry-After.
func TestKeys(t *testing.T) {
	s := newStack(t, stackOptions{keys: true})
	// No key made yet: the loopback server serves its local user.
	if code, _, _ := s.call(t, "", "GET", "/api/v1/threads", ""); code != http.StatusOK {
		t.Fatalf("no keys yet, no key: %d", code)
	}
	ka, a := mustKey(t, s, account.NewKey{Tenant: "acme", User: "ann"})
	_, b := mustKey(t, s, account.NewKey{Tenant: "globex", User: "bob"})
	time.Sleep(2100 * time.Millisecond) // the server checks for keys every 2 s

	for _, tc := range []struct{ key, want string }{
		{"", "needs an API key"}, {"yk_wrong", "not valid"},
	} {
		if code, body, _ := s.call(t, tc.key, "GET", "/api/v1/threads", ""); code != http.StatusUnauthorized || !strings.Contains(body, tc.want) {
			t.Fatalf("key %q: %d %s", tc.key, code, body)
		}
	}

	code, body, _ := s.call(t, a, "POST", "/api/v1/threads", `{"title":"acme plans"}`)
	if code != http.StatusCreated {
		t.Fatalf("create thread with a key: %d %s", code, body)
	}
	thread := body[strings.Index(body, `"id":"`)+6:]
	thread = thread[:strings.Index(thread, `"`)]
	if code, body, _ := s.call(t, a, "POST", "/api/v1/threads/"+thread+"/messages", `{"content":"Our budget is 9000 EUR. My name is Ann."}`); code != http.StatusOK {
		t.Fatalf("send with a key: %d %s", code, body)
	}
	var reply struct {
		Reply  struct{ ID int64 }
		TurnID string `json:"turn_id"`
	}
	_, body, _ = s.call(t, a, "POST", "/api/v1/threads/"+thread+"/messages", `{"content":"What is our budget?"}`)
	if err := jsonUnmarshal(body, &reply); err != nil {
		t.Fatal(err)
	}

	// Tenant B names tenant A's things: 404 everywhere, no data.
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/api/v1/threads/" + thread, ""},
		{"GET", "/api/v1/threads/" + thread + "/messages", ""},
		{"POST", "/api/v1/threads/" + thread + "/messages", `{"content":"hi"}`},
		{"GET", "/api/v1/threads/" + thread + "/context", ""},
		{"GET", "/api/v1/threads/" + thread + "/anchors", ""},
		{"GET", "/api/v1/threads/" + thread + "/search?q=budget", ""},
		{"PATCH", "/api/v1/threads/" + thread, `{"title":"mine"}`},
		{"POST", "/api/v1/threads/" + thread + "/refresh", ""},
		{"GET", "/api/v1/turns/" + reply.TurnID, ""},
		{"POST", fmt.Sprintf("/api/v1/messages/%d/feedback", reply.Reply.ID), `{"thumb":"up"}`},
		{"GET", "/api/v1/facts?thread=" + thread, ""},
	} {
		code, body, _ := s.call(t, b, r.method, r.path, r.body)
		if code != http.StatusNotFound || strings.Contains(body, "9000") || strings.Contains(body, "acme") {
			t.Errorf("tenant B %s %s: %d %s", r.method, r.path, code, body)
		}
	}
	for _, path := range []string{"/api/v1/threads", "/api/v1/facts", "/api/v1/experiences", "/api/v1/research/topics", "/api/v1/research/fails"} {
		if code, body, _ := s.call(t, b, "GET", path, ""); code != http.StatusOK || strings.Contains(body, "9000") || strings.Contains(body, "acme") || strings.Contains(body, thread) {
			t.Errorf("tenant B lists %s: %d %s", path, code, body)
		}
	}

	if err := account.NewStore(s.pool).RevokeKey(context.Background(), ka.ID); err != nil {
		t.Fatal(err)
	}
	if code, body, _ := s.call(t, a, "GET", "/api/v1/threads", ""); code != http.StatusUnauthorized || !strings.Contains(body, "revoked") {
		t.Fatalf("revoked key: %d %s", code, body)
	}

	_, slow := mustKey(t, s, account.NewKey{Tenant: "acme", User: "ann", RatePerMinute: 6})
	if code, _, _ := s.call(t, slow, "GET", "/api/v1/threads", ""); code != http.StatusOK {
		t.Fatalf("first request of a slow key: %d", code)
	}
	code, body, retry := s.call(t, slow, "GET", "/api/v1/threads", "")
	if code != http.StatusTooManyRequests || retry == "" || retry == "0" || !strings.Contains(body, "6 requests a minute") {
		t.Fatalf("over the rate: %d %q Retry-After %q", code, body, retry)
	}
}

// TestTurnLimit: a key with one turn at a time gets 429 for a second turn
// while the first is running.
func TestTurnLimit(t *testing.T) {
	release := make(chan struct{})
	fake := newFakeOpenAI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		<-release
		streamChunks(w, []string{"done"}, false)
	})
	s := newStack(t, stackOptions{model: fake.model(), keys: true, cfg: turn.Config{}})
	_, key := mustKey(t, s, account.NewKey{Tenant: "acme", User: "ann", MaxTurns: 1})
	_, body, _ := s.call(t, key, "POST", "/api/v1/threads", `{}`)
	thread := body[strings.Index(body, `"id":"`)+6:]
	thread = thread[:strings.Index(thread, `"`)]
	first := make(chan int, 1)
	go func() {
		code, _, _ := s.call(t, key, "POST", "/api/v1/threads/"+thread+"/messages", `{"content":"one"}`)
		first <- code
	}()
	deadline := time.Now().Add(10 * time.Second)
	for fake.n.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	code, body, retry := s.call(t, key, "POST", "/api/v1/threads/"+thread+"/messages", `{"content":"two"}`)
	close(release)
	if code != http.StatusTooManyRequests || retry == "" || !strings.Contains(body, "turns in flight") {
		t.Fatalf("second turn: %d %s (Retry-After %q)", code, body, retry)
	}
	if c := <-first; c != http.StatusOK {
		t.Fatalf("first turn: %d", c)
	}
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
