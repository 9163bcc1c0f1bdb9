package distributed_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"testing"

	"yakor/account"
	"yakor/app"
	"yakor/app/apptest"
	"yakor/postgres/pgtest"
)

// TestHTTPRoutesToOneShard sends turns through the router as clients do:
// a backend key acting for an end user on the OpenAI-compatible endpoint
// (the end user and their conversation made on first use), and the native
// API's threads (create, send, list, read, the memory panel's trace),
// on a service role whose statements fail unless each routes to one shard.
func TestHTTPRoutesToOneShard(t *testing.T) {
	owner, svc := pgtest.NewCitusService(t, noFanOut)
	logged := newWarnings()
	s := apptest.StartLogged(t, apptest.Config(), slog.New(logged), app.WithDatabase(&app.Database{Owner: owner, Tenant: svc}))
	_, backend, err := s.Accounts.CreateKey(t.Context(), account.NewKey{Tenant: "shop", Name: "backend", Role: account.RoleBackend})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"My name is Anna; the oak board costs 3400.", "What does the oak board cost?"} {
		body, _ := json.Marshal(map[string]any{"model": "yakor", "user": "anna@shop", "messages": []any{map[string]string{"role": "user", "content": text}}})
		if a := apptest.Call(t, s.URL, backend, "POST", "/v1/chat/completions", string(body), nil); a.Status != http.StatusOK {
			t.Fatalf("chat completion: %d %s", a.Status, a.Body)
		}
	}
	_, user, err := s.Accounts.CreateKey(t.Context(), account.NewKey{Tenant: "shop", User: "boris", Name: "boris"})
	if err != nil {
		t.Fatal(err)
	}
	var th struct {
		ID string `json:"id"`
	}
	if a := apptest.Call(t, s.URL, user, "POST", "/api/v1/threads", `{"title":"prices"}`, &th); a.Status != http.StatusCreated {
		t.Fatalf("create thread: %d %s", a.Status, a.Body)
	}
	var sent struct {
		TurnID string `json:"turn_id"`
	}
	if a := apptest.Call(t, s.URL, user, "POST", "/api/v1/threads/"+th.ID+"/messages", `{"content":"The birch board is 2100."}`, &sent); a.Status != http.StatusOK {
		t.Fatalf("send: %d %s", a.Status, a.Body)
	}
	for _, path := range []string{"/api/v1/threads", "/api/v1/threads/" + th.ID, "/api/v1/threads/" + th.ID + "/messages"} {
		if a := apptest.Call(t, s.URL, user, "GET", path, "", nil); a.Status != http.StatusOK {
			t.Errorf("GET %s: %d %s", path, a.Status, a.Body)
		}
	}
	logged.none(t)
}
