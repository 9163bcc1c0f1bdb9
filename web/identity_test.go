package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"yakor/account"
	"yakor/app/apptest"
	"yakor/turn"
)

// annSecrets are what end user Ann tells the app; no word of them may reach
// end user Bob behind the same backend key.
var annSecrets = []string{"Ann", "vegan", "9000"}

// TestEndUsersBehindOneBackendKey is boundary 1: one backend key serves two
// end users, named by X-Yakor-User on the native API and by the user field
// on /v1. Ann's name, diet and price list reach her facts, anchors, summary
// and search; Bob's prompt, facts, threads and search hold none of it, and
// he cannot open her thread. A user key may name only its own user.
func TestEndUsersBehindOneBackendKey(t *testing.T) {
	s := newStack(t, stackOptions{model: recallingModel(t), keys: true, compact: true, cfg: turn.Config{AnchorMode: turn.AnchorSync, WindowChars: 1500}})
	_, backend := mustKey(t, s, account.NewKey{Tenant: "shop", User: "shop-server", Role: account.RoleBackend, RatePerMinute: 60000})
	_, annKey := mustKey(t, s, account.NewKey{Tenant: "shop", User: "ann", RatePerMinute: 60000})
	time.Sleep(2100 * time.Millisecond) // the server checks for keys every 2 s

	as := func(user, method, path, body string, out any) int {
		t.Helper()
		return apptest.Call(t, s.URL, backend, method, path, body, out, "X-Yakor-User", user).Status
	}
	thread := func(user string) string {
		t.Helper()
		var th struct{ ID string }
		if code := as(user, "POST", "/api/v1/threads", `{"title":"chat"}`, &th); code != http.StatusCreated {
			t.Fatalf("%s: create thread: %d", user, code)
		}
		return th.ID
	}
	send := func(user, thread, text string) {
		t.Helper()
		if code := as(user, "POST", "/api/v1/threads/"+thread+"/messages", jsonBody(map[string]string{"content": text}), nil); code != http.StatusOK {
			t.Fatalf("%s: send %q: %d", user, text, code)
		}
	}

	ann := thread("ann")
	send("ann", ann, "Hello! My name is Ann. I'm vegan.")
	send("ann", ann, "Price list: oak board 9000 EUR, pine panel 1250 EUR.")
	for i := range 6 {
		send("ann", ann, fmt.Sprintf("Shelf %d needs %d oak boards. %s", i, i+2, strings.Repeat("More details about the shelf. ", 8)))
	}
	// Ann's own prompt holds her name (a fact, extracted after the turn)
	// and her prices, or the test would prove nothing.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		var annCtx struct{ Layers []struct{ Name, Text string } }
		as("ann", "GET", "/api/v1/threads/"+ann+"/context", "", &annCtx)
		whole := fmt.Sprint(annCtx.Layers)
		if strings.Contains(whole, "Ann") && strings.Contains(whole, "9000") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Ann's own prompt lacks her name or prices: %s", whole)
		}
	}

	bob := thread("bob")
	send("bob", bob, "What is my name, what do I eat and what does the oak board cost?")
	var bobCtx struct{ Layers []struct{ Name, Text string } }
	if code := as("bob", "GET", "/api/v1/threads/"+bob+"/context", "", &bobCtx); code != http.StatusOK {
		t.Fatalf("bob's context: %d", code)
	}
	for _, l := range bobCtx.Layers {
		if l.Name == "message" || l.Name == "window" {
			continue // his own question names the oak board
		}
		for _, secret := range annSecrets {
			if strings.Contains(l.Text, secret) {
				t.Errorf("bob's %s layer holds Ann's %q:\n%s", l.Name, secret, l.Text)
			}
		}
	}
	var facts struct{ Facts []struct{ Text string } }
	as("bob", "GET", "/api/v1/facts", "", &facts)
	for _, f := range facts.Facts {
		for _, secret := range annSecrets {
			if strings.Contains(f.Text, secret) {
				t.Errorf("bob's facts hold Ann's %q: %s", secret, f.Text)
			}
		}
	}
	var threads struct{ Threads []struct{ ID string } }
	as("bob", "GET", "/api/v1/threads", "", &threads)
	if len(threads.Threads) != 1 || threads.Threads[0].ID != bob {
		t.Errorf("bob lists threads %+v, want his one", threads.Threads)
	}
	for _, path := range []string{"/api/v1/threads/" + ann, "/api/v1/threads/" + ann + "/messages", "/api/v1/threads/" + ann + "/context", "/api/v1/threads/" + ann + "/search?q=oak"} {
		if code := as("bob", "GET", path, "", nil); code != http.StatusNotFound {
			t.Errorf("bob GET %s: %d, want 404", path, code)
		}
	}
	var hits struct{ Hits []struct{ Content string } }
	as("bob", "GET", "/api/v1/threads/"+bob+"/search?q=oak+board+9000", "", &hits)
	for _, h := range hits.Hits {
		if strings.Contains(h.Content, "9000") {
			t.Errorf("bob's search finds Ann's message: %s", h.Content)
		}
	}

	// Recall: Ann's answer, graded up, is hers alone.
	var pin struct {
		Reply  struct{ ID int64 }
		TurnID string `json:"turn_id"`
	}
	send("ann", ann, "My bank PIN is 9931.")
	as("ann", "POST", "/api/v1/threads/"+ann+"/messages", `{"content":"What is my bank PIN?"}`, &pin)
	if code := as("ann", "POST", fmt.Sprintf("/api/v1/messages/%d/feedback", pin.Reply.ID), `{"thumb":"up"}`, nil); code != http.StatusOK {
		t.Fatalf("ann's thumb up: %d", code)
	}
	as("bob", "POST", "/api/v1/threads/"+bob+"/messages", `{"content":"What is my bank PIN?"}`, &pin)
	var tr struct {
		Layers []struct {
			Name    string
			Entries []struct{ ID int64 }
		}
	}
	as("bob", "GET", "/api/v1/turns/"+pin.TurnID, "", &tr)
	var recalled []int64
	for _, l := range tr.Layers {
		for _, e := range l.Entries {
			if l.Name == "memory" {
				recalled = append(recalled, e.ID)
			}
		}
	}
	var annsOwn, annsAll int
	if err := s.pool.QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE e.id = ANY($1)), count(*) FROM experiences e JOIN users u ON u.tenant_id = e.tenant_id AND u.id = e.user_id
WHERE u.external_id = 'ann'`, recalled).Scan(&annsOwn, &annsAll); err != nil || annsOwn != 0 || annsAll == 0 {
		t.Errorf("bob's prompt recalled %d of ann's %d entries (%v)", annsOwn, annsAll, err)
	}

	// /v1: the user field names the end user, and each has a default
	// conversation of their own.
	v1 := func(user, text string) chatReply {
		t.Helper()
		r := s.chat(t, backend, "POST", "/v1/chat/completions", jsonBody(map[string]any{"model": "yakor", "user": user, "messages": []any{map[string]string{"role": "user", "content": text}}}))
		if r.code != http.StatusOK {
			t.Fatalf("/v1 as %s: %d %s", user, r.code, r.body)
		}
		return r
	}
	v1("ann", "Hello! My name is Ann. I'm vegan and our oak board costs 9000 EUR.")
	bobV1, _ := v1("bob", "What is my name and what do I eat?").thread()
	var bobV1Ctx struct{ Layers []struct{ Name, Text string } }
	as("bob", "GET", "/api/v1/threads/"+bobV1+"/context", "", &bobV1Ctx)
	for _, l := range bobV1Ctx.Layers {
		for _, secret := range annSecrets {
			if l.Name != "message" && strings.Contains(l.Text, secret) {
				t.Errorf("bob's /v1 %s layer holds Ann's %q:\n%s", l.Name, secret, l.Text)
			}
		}
	}

	// A user key acts for its own user only.
	if a := apptest.Call(t, s.URL, annKey, "GET", "/api/v1/threads", "", nil, "X-Yakor-User", "bob"); a.Status != http.StatusForbidden {
		t.Errorf("ann's user key naming bob: %d, want 403", a.Status)
	}
	var own struct{ Threads []struct{ ID string } }
	if a := apptest.Call(t, s.URL, annKey, "GET", "/api/v1/threads", "", &own, "X-Yakor-User", "ann"); a.Status != http.StatusOK || len(own.Threads) != 2 {
		t.Errorf("ann's user key naming herself: %d, %d threads, want her 2", a.Status, len(own.Threads))
	}
	if r := s.chat(t, annKey, "POST", "/v1/chat/completions", jsonBody(map[string]any{"model": "yakor", "user": "bob", "messages": []any{map[string]string{"role": "user", "content": "hi"}}})); r.code != http.StatusForbidden {
		t.Errorf("ann's user key with user bob on /v1: %d, want 403", r.code)
	}
	for _, bad := range []string{"a\tb", strings.Repeat("x", 201)} {
		if code := as(bad, "GET", "/api/v1/threads", "", nil); code != http.StatusBadRequest {
			t.Errorf("X-Yakor-User %q: %d, want 400", bad[:3], code)
		}
	}
}
