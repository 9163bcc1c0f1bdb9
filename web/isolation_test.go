package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"yakor/account"
	"yakor/turn"
	"yakor/web"
)

// TestCrossTenantEveryRoute: tenant B, with a valid admin key of its own,
// names tenant A's ids on every route that takes one: each answers 404
// with none of A's data, and A's data is as it was. The table must name
// every route the server has with a path parameter, so a new route cannot
// skip the check.
func TestCrossTenantEveryRoute(t *testing.T) {
	ctx := context.Background()
	s := newStack(t, stackOptions{keys: true, cfg: turn.Config{AnchorMode: turn.AnchorSync}})
	keyA, a := mustKey(t, s, account.NewKey{Tenant: "acme", User: "ann", Role: account.RoleAdmin, RatePerMinute: 6000})
	_, b := mustKey(t, s, account.NewKey{Tenant: "globex", User: "bob", Role: account.RoleAdmin, RatePerMinute: 6000})
	time.Sleep(2100 * time.Millisecond) // the server checks for keys every 2 s

	// Tenant A's things, each holding the secret "9000".
	id := func(body string) string { return bodyID(t, body) }
	must := func(want int, method, path, body string) string { return s.must(t, a, want, method, path, body) }
	thread := id(must(201, "POST", "/api/v1/threads", `{"title":"acme plans 9000"}`))
	must(200, "POST", "/api/v1/threads/"+thread+"/messages", `{"content":"Price list: oak board 9000 EUR, pine panel 1250 EUR."}`)
	var reply struct {
		Reply  struct{ ID int64 }
		TurnID string `json:"turn_id"`
	}
	if err := jsonUnmarshal(must(200, "POST", "/api/v1/threads/"+thread+"/messages", `{"content":"What does the oak board cost?"}`), &reply); err != nil {
		t.Fatal(err)
	}
	var anchor string
	if err := s.pool.QueryRow(ctx, `SELECT id::text FROM microgoals WHERE thread_id = $1 LIMIT 1`, thread).Scan(&anchor); err != nil {
		t.Fatalf("tenant A's thread has no anchor: %v", err)
	}
	fact := id(must(201, "POST", "/api/v1/facts", `{"scope":"user","text":"Ann's budget is 9000 EUR"}`))
	exp := id(must(201, "POST", "/api/v1/experiences", `{"level":2,"topic":"acme budget","title":"the budget","note":"The acme budget is 9000 EUR."}`))
	topic := id(must(201, "POST", "/api/v1/research/topics", `{"topic":"acme oak 9000 supplier"}`))

	routes := []struct{ method, route, path, body string }{
		{"GET", "/api/v1/threads/:id", "/api/v1/threads/" + thread, ""},
		{"PATCH", "/api/v1/threads/:id", "/api/v1/threads/" + thread, `{"title":"mine"}`},
		{"GET", "/api/v1/threads/:id/messages", "/api/v1/threads/" + thread + "/messages", ""},
		{"POST", "/api/v1/threads/:id/messages", "/api/v1/threads/" + thread + "/messages", `{"content":"hi"}`},
		{"GET", "/api/v1/threads/:id/context", "/api/v1/threads/" + thread + "/context", ""},
		{"POST", "/api/v1/threads/:id/context", "/api/v1/threads/" + thread + "/context", `{"message":"Which secret?"}`},
		{"POST", "/api/v1/threads/:id/messages/import", "/api/v1/threads/" + thread + "/messages/import", `{"messages":[{"role":"user","content":"mine"}]}`},
		{"GET", "/api/v1/threads/:id/anchors", "/api/v1/threads/" + thread + "/anchors", ""},
		{"GET", "/api/v1/threads/:id/search", "/api/v1/threads/" + thread + "/search?q=oak", ""},
		{"POST", "/api/v1/threads/:id/refresh", "/api/v1/threads/" + thread + "/refresh", ""},
		{"PATCH", "/api/v1/anchors/:id", "/api/v1/anchors/" + anchor, `{"topic":"mine"}`},
		{"DELETE", "/api/v1/anchors/:id", "/api/v1/anchors/" + anchor, ""},
		{"GET", "/api/v1/turns/:id", "/api/v1/turns/" + reply.TurnID, ""},
		{"GET", "/v1/responses/:id", "/v1/responses/resp_" + reply.TurnID, ""},
		{"POST", "/api/v1/messages/:id/feedback", fmt.Sprintf("/api/v1/messages/%d/feedback", reply.Reply.ID), `{"thumb":"down"}`},
		{"PATCH", "/api/v1/facts/:id", "/api/v1/facts/" + fact, `{"text":"mine"}`},
		{"DELETE", "/api/v1/facts/:id", "/api/v1/facts/" + fact, ""},
		{"GET", "/api/v1/experiences/:id", "/api/v1/experiences/" + exp, ""},
		{"POST", "/api/v1/experiences/:id/share", "/api/v1/experiences/" + exp + "/share", ""},
		{"DELETE", "/api/v1/experiences/:id", "/api/v1/experiences/" + exp, ""},
		{"DELETE", "/api/v1/keys/:id", "/api/v1/keys/" + keyA.ID, ""},
		{"GET", "/api/v1/facts", "/api/v1/facts?thread=" + thread, ""},
		{"GET", "/api/v1/users/:id/export", "/api/v1/users/" + keyA.UserID + "/export", ""},
		{"DELETE", "/api/v1/messages/:id", fmt.Sprintf("/api/v1/messages/%d", reply.Reply.ID), ""},
		{"DELETE", "/api/v1/threads/:id", "/api/v1/threads/" + thread, ""},
		{"DELETE", "/api/v1/users/:id", "/api/v1/users/" + keyA.UserID, ""},
	}
	covered := map[string]bool{
		"GET /v1/models/*id": true, // the model catalogue: no tenant's data
		"GET /assets/*path":  true, // the web chat's files
		"HEAD /assets/*path": true,
	}
	for _, r := range routes {
		covered[r.method+" "+r.route] = true
		code, body, _ := s.call(t, b, r.method, r.path, r.body)
		if code != http.StatusNotFound || strings.Contains(body, "9000") || strings.Contains(body, "acme") {
			t.Errorf("tenant B %s %s: %d %s", r.method, r.path, code, body)
		}
	}
	// The OpenAI-compatible endpoint, naming A's thread.
	req, _ := http.NewRequest("POST", s.URL+"/v1/chat/completions", strings.NewReader(`{"model":"yakor","messages":[{"role":"user","content":"What does the oak board cost?"}]}`))
	req.Header.Set("Authorization", "Bearer "+b)
	req.Header.Set("X-Yakor-Thread", thread)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("tenant B /v1/chat/completions in A's thread: %d", resp.StatusCode)
	}
	covered["POST /v1/chat/completions"] = true
	if r := s.chat(t, b, "POST", "/v1/responses", `{"model":"yakor","input":"What does the oak board cost?","previous_response_id":"resp_`+reply.TurnID+`"}`); r.code != http.StatusNotFound || strings.Contains(r.body, "9000") {
		t.Errorf("tenant B /v1/responses after A's response: %d %s", r.code, r.body)
	}
	covered["POST /v1/responses"] = true
	for _, r := range web.Routes(s.srv) {
		if strings.ContainsAny(r, ":*") && !covered[r] {
			t.Errorf("route %s takes an id but no cross-tenant case calls it", r)
		}
	}
	// B's lists hold nothing of A's.
	for _, path := range []string{"/api/v1/threads", "/api/v1/facts", "/api/v1/experiences?level=2", "/api/v1/research/topics",
		"/api/v1/research/fails", "/api/v1/research/articles?topic=" + topic, "/api/v1/keys"} {
		if code, body, _ := s.call(t, b, "GET", path, ""); code != http.StatusOK || strings.Contains(body, "9000") || strings.Contains(body, "acme") || strings.Contains(body, thread) {
			t.Errorf("tenant B lists %s: %d %s", path, code, body)
		}
	}

	// A's things are as they were.
	for _, c := range []struct{ path, want string }{
		{"/api/v1/threads/" + thread, "acme plans 9000"},
		{"/api/v1/threads/" + thread + "/anchors", anchor},
		{"/api/v1/facts", "Ann's budget is 9000 EUR"},
		{"/api/v1/experiences/" + exp, "The acme budget is 9000 EUR."},
	} {
		if body := must(200, "GET", c.path, ""); !strings.Contains(body, c.want) {
			t.Errorf("tenant A's %s lost %q: %s", c.path, c.want, body)
		}
	}
	var msgs, grades int
	if err := s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM messages WHERE thread_id = $1), (SELECT count(*) FROM grades WHERE source = 'user')`, thread).Scan(&msgs, &grades); err != nil || msgs != 4 || grades != 0 {
		t.Errorf("tenant A's thread has %d messages and %d user grades (%v), want 4 and 0", msgs, grades, err)
	}
}
