package distributed_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"testing"

	"yakor"
	"yakor/account"
	"yakor/app"
	"yakor/app/apptest"
	"yakor/postgres/pgtest"
)

// TestHTTPRoutesToOneShard sends turns through the router as clients do:
// a backend key acting for an end user on the OpenAI-compatible endpoint
// (the end user and their conversation made on first use), and the native
// API's threads (create, send, import without turns and the prompt it
// would make, list, read), and a
// stateless client whose every request holds the whole conversation,
// on a service role whose statements fail unless each routes to one shard.
func TestHTTPRoutesToOneShard(t *testing.T) {
	rec := newStatements()
	owner, svc := pgtest.CitusService(t, pgtest.NewCitusURL(t), noFanOut, rec)
	rec.start()
	logged := newWarnings()
	s := apptest.StartLogged(t, apptest.Config(), slog.New(logged), app.WithDatabase(&app.Database{Owner: owner, Tenant: svc}))
	bk, backend, err := s.Accounts.CreateKey(t.Context(), account.NewKey{Tenant: "shop", Name: "backend", Role: account.RoleBackend})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"My name is Anna; the oak board costs 3400.", "What does the oak board cost?"} {
		body, _ := json.Marshal(map[string]any{"model": "yakor", "user": "anna@shop", "messages": []any{map[string]string{"role": "user", "content": text}}})
		if a := apptest.Call(t, s.URL, backend, "POST", "/v1/chat/completions", string(body), nil); a.Status != http.StatusOK {
			t.Fatalf("chat completion: %d %s", a.Status, a.Body)
		}
	}
	// A stateless client: the whole conversation in each request, its
	// earlier messages imported into the thread once.
	stateless, _ := json.Marshal(map[string]any{"model": "yakor", "user": "boris@shop", "messages": []any{
		map[string]string{"role": "user", "content": "The pine board is 1250."},
		map[string]string{"role": "assistant", "content": "Noted: pine at 1250."},
		map[string]string{"role": "user", "content": "And what does pine cost?"}}})
	if a := apptest.Call(t, s.URL, backend, "POST", "/v1/chat/completions", string(stateless), nil); a.Status != http.StatusOK {
		t.Fatalf("stateless chat completion: %d %s", a.Status, a.Body)
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
	var pine int
	if err := owner.QueryRow(t.Context(), `SELECT count(*) FROM messages WHERE content = 'The pine board is 1250.'`).Scan(&pine); err != nil || pine != 1 {
		t.Errorf("the stateless client's earlier message stored %d times (%v), want once", pine, err)
	}
	// Memory-only: messages imported without turns, then the prompt
	// Yakor would send (the memory-only mode's preview).
	imp := `{"messages":[{"role":"user","content":"The sofa is 31500.","client_id":"m1"},{"role":"assistant","content":"Noted."}]}`
	if a := apptest.Call(t, s.URL, user, "POST", "/api/v1/threads/"+th.ID+"/messages/import", imp, nil); a.Status != http.StatusCreated {
		t.Errorf("import: %d %s", a.Status, a.Body)
	}
	if a := apptest.Call(t, s.URL, user, "POST", "/api/v1/threads/"+th.ID+"/context", `{"message":"What is the sofa's price?"}`, nil); a.Status != http.StatusOK {
		t.Errorf("context preview: %d %s", a.Status, a.Body)
	}
	for _, path := range []string{"/api/v1/threads", "/api/v1/threads/" + th.ID, "/api/v1/threads/" + th.ID + "/messages"} {
		if a := apptest.Call(t, s.URL, user, "GET", path, "", nil); a.Status != http.StatusOK {
			t.Errorf("GET %s: %d %s", path, a.Status, a.Body)
		}
	}
	shop := yakor.Scope{TenantID: bk.TenantID}.Context(t.Context())
	if routed, _ := rec.explainEach(t, shop, svc); routed == 0 {
		t.Error("no routed statement seen")
	}
	logged.none(t)
}
