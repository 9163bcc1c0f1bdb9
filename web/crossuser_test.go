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

// TestCrossUserEveryRoute: Bob, a user of Alice's tenant with a user key of
// his own, names Alice's ids on every route that takes one (404, or 403
// where a user key may not act at all, and never a word of hers), and
// reads every list: none holds anything of hers. The tables must name
// every route with a path parameter and every list the server has, so a
// new route cannot skip the check. Alice's data is as it was.
func TestCrossUserEveryRoute(t *testing.T) {
	ctx := context.Background()
	s := newStack(t, stackOptions{model: recallingModel(t), keys: true, cfg: turn.Config{AnchorMode: turn.AnchorSync}})
	keyA, a := mustKey(t, s, account.NewKey{Tenant: "acme", User: "alice", RatePerMinute: 6000})
	_, b := mustKey(t, s, account.NewKey{Tenant: "acme", User: "bob", RatePerMinute: 6000})
	time.Sleep(2100 * time.Millisecond) // the server checks for keys every 2 s

	id := func(body string) string { return bodyID(t, body) }
	must := func(want int, method, path, body string) string { return s.must(t, a, want, method, path, body) }
	// Alice's things, each holding the secret "4417".
	thread := id(must(201, "POST", "/api/v1/threads", `{"title":"alice card 4417"}`))
	must(200, "POST", "/api/v1/threads/"+thread+"/messages", `{"content":"My card ends in 4417, my PIN is 9931."}`)
	var reply struct {
		Reply  struct{ ID int64 }
		TurnID string `json:"turn_id"`
	}
	if err := jsonUnmarshal(must(200, "POST", "/api/v1/threads/"+thread+"/messages", `{"content":"Which card ends in 4417?"}`), &reply); err != nil {
		t.Fatal(err)
	}
	must(200, "POST", fmt.Sprintf("/api/v1/messages/%d/feedback", reply.Reply.ID), `{"thumb":"down","comment":"card 4417 is the credit one"}`)
	var anchor string
	if err := s.pool.QueryRow(ctx, `SELECT id::text FROM microgoals WHERE thread_id = $1 LIMIT 1`, thread).Scan(&anchor); err != nil {
		t.Fatalf("alice's thread has no anchor: %v", err)
	}
	fact := id(must(201, "POST", "/api/v1/facts", `{"scope":"user","text":"Alice's card ends in 4417"}`))
	exp := id(must(201, "POST", "/api/v1/experiences", `{"level":2,"topic":"alice card","title":"card 4417","note":"Alice's card 4417 is the credit one."}`))
	topic := id(must(201, "POST", "/api/v1/research/topics", `{"topic":"oak supplier delivery schedule of alice"}`))

	routes := []struct {
		method, route, path, body string
		want                      int
	}{
		{"GET", "/api/v1/threads/:id", "/api/v1/threads/" + thread, "", 404},
		{"PATCH", "/api/v1/threads/:id", "/api/v1/threads/" + thread, `{"title":"mine"}`, 404},
		{"GET", "/api/v1/threads/:id/messages", "/api/v1/threads/" + thread + "/messages", "", 404},
		{"POST", "/api/v1/threads/:id/messages", "/api/v1/threads/" + thread + "/messages", `{"content":"hi"}`, 404},
		{"GET", "/api/v1/threads/:id/context", "/api/v1/threads/" + thread + "/context", "", 404},
		{"POST", "/api/v1/threads/:id/context", "/api/v1/threads/" + thread + "/context", `{"message":"Which secret?"}`, 404},
		{"POST", "/api/v1/threads/:id/messages/import", "/api/v1/threads/" + thread + "/messages/import", `{"messages":[{"role":"user","content":"mine"}]}`, 404},
		{"GET", "/api/v1/threads/:id/anchors", "/api/v1/threads/" + thread + "/anchors", "", 404},
		{"GET", "/api/v1/threads/:id/search", "/api/v1/threads/" + thread + "/search?q=card", "", 404},
		{"POST", "/api/v1/threads/:id/refresh", "/api/v1/threads/" + thread + "/refresh", "", 404},
		{"PATCH", "/api/v1/anchors/:id", "/api/v1/anchors/" + anchor, `{"topic":"mine"}`, 404},
		{"DELETE", "/api/v1/anchors/:id", "/api/v1/anchors/" + anchor, "", 404},
		{"GET", "/api/v1/turns/:id", "/api/v1/turns/" + reply.TurnID, "", 404},
		{"GET", "/v1/responses/:id", "/v1/responses/resp_" + reply.TurnID, "", 404},
		{"POST", "/api/v1/messages/:id/feedback", fmt.Sprintf("/api/v1/messages/%d/feedback", reply.Reply.ID), `{"thumb":"up"}`, 404},
		{"PATCH", "/api/v1/facts/:id", "/api/v1/facts/" + fact, `{"text":"mine"}`, 404},
		{"DELETE", "/api/v1/facts/:id", "/api/v1/facts/" + fact, "", 404},
		{"GET", "/api/v1/experiences/:id", "/api/v1/experiences/" + exp, "", 404},
		{"POST", "/api/v1/experiences/:id/share", "/api/v1/experiences/" + exp + "/share", "", 403},
		{"DELETE", "/api/v1/experiences/:id", "/api/v1/experiences/" + exp, "", 404},
		{"DELETE", "/api/v1/keys/:id", "/api/v1/keys/" + keyA.ID, "", 403},
		{"GET", "/api/v1/users/:id/export", "/api/v1/users/" + keyA.UserID + "/export", "", 403},
		{"DELETE", "/api/v1/messages/:id", fmt.Sprintf("/api/v1/messages/%d", reply.Reply.ID), "", 404},
		{"DELETE", "/api/v1/threads/:id", "/api/v1/threads/" + thread, "", 404},
		{"DELETE", "/api/v1/users/:id", "/api/v1/users/" + keyA.UserID, "", 403},
	}
	covered := map[string]bool{
		"GET /v1/models/*id": true, // the model catalogue: no user's data
		"GET /assets/*path":  true, // the web chat's files
		"HEAD /assets/*path": true,
	}
	for _, r := range routes {
		covered[r.method+" "+r.route] = true
		code, body, _ := s.call(t, b, r.method, r.path, r.body)
		if code != r.want || strings.Contains(body, "4417") || strings.Contains(body, "alice") {
			t.Errorf("bob %s %s: %d %s, want %d", r.method, r.path, code, body, r.want)
		}
	}
	// /v1 in Alice's thread, and naming Alice as the end user.
	if r := s.chat(t, b, "POST", "/v1/chat/completions", `{"model":"yakor","messages":[{"role":"user","content":"Which card?"}]}`, "X-Yakor-Thread", thread); r.code != http.StatusNotFound {
		t.Errorf("bob /v1 in alice's thread: %d", r.code)
	}
	if r := s.chat(t, b, "POST", "/v1/chat/completions", `{"model":"yakor","user":"alice","messages":[{"role":"user","content":"Which card?"}]}`); r.code != http.StatusForbidden {
		t.Errorf("bob /v1 as alice: %d", r.code)
	}
	covered["POST /v1/chat/completions"] = true
	// The Responses API, continuing Alice's response.
	if r := s.chat(t, b, "POST", "/v1/responses", `{"model":"yakor","input":"Which card?","previous_response_id":"resp_`+reply.TurnID+`"}`); r.code != http.StatusNotFound || strings.Contains(r.body, "4417") {
		t.Errorf("bob /v1/responses after alice's response: %d %s", r.code, r.body)
	}
	covered["POST /v1/responses"] = true

	// Every list, as Bob: nothing of Alice's.
	lists := map[string]string{
		"GET /api/v1/threads":           "/api/v1/threads",
		"GET /api/v1/facts":             "/api/v1/facts?closed=true",
		"GET /api/v1/experiences":       "/api/v1/experiences",
		"GET /api/v1/research/topics":   "/api/v1/research/topics",
		"GET /api/v1/research/fails":    "/api/v1/research/fails",
		"GET /api/v1/research/articles": "/api/v1/research/articles?topic=" + topic,
		"GET /api/v1/research/status":   "/api/v1/research/status",
		"GET /api/v1/keys":              "/api/v1/keys", // a user key: 403
		"GET /v1/models":                "/v1/models",
		"GET /api/v1/info":              "/api/v1/info",
		"GET /api/v1/openapi.json":      "/api/v1/openapi.json",
	}
	for route, path := range lists {
		covered[route] = true
		code, body, _ := s.call(t, b, "GET", path, "")
		if code != http.StatusOK && !(route == "GET /api/v1/keys" && code == http.StatusForbidden) ||
			strings.Contains(body, "4417") || strings.Contains(body, "alice") || strings.Contains(body, thread) {
			t.Errorf("bob lists %s: %d %s", path, code, body)
		}
	}
	for _, r := range web.Routes(s.srv) {
		method, path, _ := strings.Cut(r, " ")
		list := method == "GET" && (strings.HasPrefix(path, "/api/v1/") || strings.HasPrefix(path, "/v1/"))
		if (strings.ContainsAny(r, ":*") || list) && !covered[r] {
			t.Errorf("route %s takes an id or lists, but no cross-user case calls it", r)
		}
	}

	// Alice's things are as they were.
	for _, c := range []struct{ path, want string }{
		{"/api/v1/threads/" + thread, "alice card 4417"},
		{"/api/v1/threads/" + thread + "/anchors", anchor},
		{"/api/v1/facts", "Alice's card ends in 4417"},
		{"/api/v1/experiences/" + exp, "Alice's card 4417 is the credit one."},
		{"/api/v1/research/fails", "Which card ends in 4417?"},
	} {
		if body := must(200, "GET", c.path, ""); !strings.Contains(body, c.want) {
			t.Errorf("alice's %s lost %q: %s", c.path, c.want, body)
		}
	}
}
