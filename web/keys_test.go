package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"yakor/account"
)

// createdKey is the body of POST /api/v1/keys.
type createdKey struct {
	ID            string  `json:"id"`
	Tenant        string  `json:"tenant"`
	User          string  `json:"user"`
	Name          string  `json:"name"`
	Prefix        string  `json:"prefix"`
	RatePerMinute int     `json:"rate_per_minute"`
	MaxTurns      int     `json:"max_turns"`
	Role          string  `json:"role"`
	RevokedAt     *string `json:"revoked_at"`
	Secret        string  `json:"secret"`
}

// keyRows counts the rows making a key can write, to prove a refused
// request wrote none.
func keyRows(tb testing.TB, s *stack) [3]int {
	tb.Helper()
	var n [3]int
	for i, table := range []string{"api_keys", "tenants", "users"} {
		if err := s.pool.QueryRow(context.Background(), "SELECT count(*) FROM "+table).Scan(&n[i]); err != nil {
			tb.Fatal(err)
		}
	}
	return n
}

// TestKeyAdminLocal: with no key made, the loopback operator (no key) is
// the local tenant's admin: refused input writes nothing and names the
// field; the first key made through the API locks the server at once, and
// acts as the local user, whose threads it keeps.
func TestKeyAdminLocal(t *testing.T) {
	s := newStack(t, stackOptions{keys: true})
	if code, body, _ := s.call(t, "", "GET", "/api/v1/keys", ""); code != http.StatusOK || body != `{"keys":[],"next_cursor":null}` {
		t.Fatalf("list with no keys: %d %s", code, body)
	}
	code, body, _ := s.call(t, "", "POST", "/api/v1/threads", `{"title":"before the keys"}`)
	if code != http.StatusCreated {
		t.Fatalf("create thread: %d %s", code, body)
	}

	before := keyRows(t, s)
	for _, tc := range []struct{ body, want string }{
		{`{"name":"x","rate_per_minute":0}`, "rate_per_minute must be at least 1"},
		{`{"name":"x","rate_per_minute":-5}`, "rate_per_minute must be at least 1"},
		{`{"name":"x","rate_per_minute":1000000000}`, "rate_per_minute must be between 1 and 100000"},
		{`{"name":"x","rate_per_minute":"fast"}`, `rate_per_minute\" must be a whole number`},
		{`{"name":"x","max_turns":0}`, "max_turns must be at least 1"},
		{`{"name":"x","max_turns":5000}`, "max_turns must be between 1 and 1000"},
		{`{"name":"x","user":"new-user","max_turns":5000}`, "max_turns"},
		{`{"name":"x","tenant":"globex"}`, "tenant cannot be chosen"},
		{`{"name":"` + strings.Repeat("n", 201) + `"}`, "name is 201 characters long"},
		{``, "request body is empty"},
	} {
		code, body, _ := s.call(t, "", "POST", "/api/v1/keys", tc.body)
		if code != http.StatusBadRequest || !strings.Contains(body, tc.want) {
			t.Errorf("POST /keys %.60s: %d %s, want 400 %q", tc.body, code, body, tc.want)
		}
	}
	if after := keyRows(t, s); after != before {
		t.Fatalf("refused requests wrote rows: (keys, tenants, users) %v, then %v", before, after)
	}
	// Still open: nothing was made.
	if code, _, _ := s.call(t, "", "GET", "/api/v1/threads", ""); code != http.StatusOK {
		t.Fatalf("no key made yet, no key: %d", code)
	}

	req, _ := http.NewRequest("POST", s.URL+"/api/v1/keys", strings.NewReader(`{"name":"laptop","admin":true}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("first key: %d, Cache-Control %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
	// That request made a key (it did not read its secret): from now on,
	// at once, a request without a key is refused.
	if code, body, _ := s.call(t, "", "GET", "/api/v1/threads", ""); code != http.StatusUnauthorized || !strings.Contains(body, "needs an API key") {
		t.Fatalf("no key after a key was made: %d %s", code, body)
	}
	if code, _, _ := s.call(t, "", "POST", "/api/v1/keys", `{"name":"sneaky","admin":true}`); code != http.StatusUnauthorized {
		t.Fatalf("making a key without one after the first: %d", code)
	}
	var keys []account.Key
	keys, err = account.NewStore(s.pool).Keys(context.Background(), account.KeyFilter{})
	if err != nil || len(keys) != 1 || keys[0].Role != account.RoleAdmin || keys[0].UserID != account.LocalUserID || keys[0].TenantID != account.LocalTenantID || keys[0].Name != "laptop" {
		t.Fatalf("the key made: %+v %v", keys, err)
	}
}

// TestKeyAdmin: an admin key makes, lists and revokes its own tenant's
// keys; a new key works at once and a revoked one is refused at once; a
// key that is not an admin key gets 403; another tenant's admin finds
// nothing of the first tenant's (404) and revokes nothing; no listing
// shows a secret.
func TestKeyAdmin(t *testing.T) {
	s := newStack(t, stackOptions{keys: true})
	_, acme := mustKey(t, s, account.NewKey{Tenant: "acme", User: "ann", Name: "acme-admin", Role: account.RoleAdmin})
	_, plain := mustKey(t, s, account.NewKey{Tenant: "acme", User: "ann", Name: "acme-plain"})
	_, globex := mustKey(t, s, account.NewKey{Tenant: "globex", User: "bob", Name: "globex-admin", Role: account.RoleAdmin})

	var made createdKey
	code, body, _ := s.call(t, acme, "POST", "/api/v1/keys", `{"name":"ci runner","user":"bot","rate_per_minute":30,"max_turns":2}`)
	if code != http.StatusCreated {
		t.Fatalf("admin makes a key: %d %s", code, body)
	}
	if err := jsonUnmarshal(body, &made); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(made.Secret, "yk_") || !strings.HasPrefix(made.Secret, made.Prefix) || made.Tenant != "acme" || made.User != "bot" ||
		made.Name != "ci runner" || made.RatePerMinute != 30 || made.MaxTurns != 2 || made.Role != "user" || made.RevokedAt != nil {
		t.Fatalf("made: %s", body)
	}
	// The new key works at once, as its user: a thread it makes is bot's.
	code, body, _ = s.call(t, made.Secret, "POST", "/api/v1/threads", `{"title":"bot's"}`)
	if code != http.StatusCreated {
		t.Fatalf("the new key at once: %d %s", code, body)
	}
	if code, body, _ := s.call(t, acme, "GET", "/api/v1/threads", ""); code != http.StatusOK || strings.Contains(body, "bot's") {
		t.Fatalf("ann sees bot's thread: %d %s", code, body)
	}

	// Listing: the tenant's four keys, newest first, no secret.
	code, body, _ = s.call(t, acme, "GET", "/api/v1/keys", "")
	var listed struct{ Keys []createdKey }
	if err := jsonUnmarshal(body, &listed); code != http.StatusOK || err != nil {
		t.Fatalf("list: %d %s %v", code, body, err)
	}
	var names []string
	for _, k := range listed.Keys {
		names = append(names, k.Name)
		if k.Tenant != "acme" || k.Secret != "" || k.Prefix == "" {
			t.Errorf("listed key %+v", k)
		}
	}
	if strings.Join(names, ",") != "ci runner,acme-plain,acme-admin" {
		t.Errorf("listed %v", names)
	}
	for _, secret := range []string{acme, plain, globex, made.Secret} {
		if strings.Contains(body, secret[len(made.Prefix):]) {
			t.Fatalf("a listing shows a secret: %s", body)
		}
	}
	if strings.Contains(body, "secret") || strings.Contains(body, "hash") || strings.Contains(body, "globex") {
		t.Fatalf("the listing says more than it should: %s", body)
	}

	// Not an admin key: 403 on every key route, saying why.
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/api/v1/keys", ""}, {"POST", "/api/v1/keys", `{"name":"mine","admin":true}`}, {"DELETE", "/api/v1/keys/" + made.ID, ""},
	} {
		code, body, _ := s.call(t, plain, r.method, r.path, r.body)
		if code != http.StatusForbidden || !strings.Contains(body, "only an admin key may") || strings.Contains(body, "ci runner") {
			t.Errorf("plain key %s %s: %d %s", r.method, r.path, code, body)
		}
	}

	// Another tenant's admin: acme's key is not found, and stays live.
	code, body, _ = s.call(t, globex, "DELETE", "/api/v1/keys/"+made.ID, "")
	if code != http.StatusNotFound || strings.Contains(body, "acme") || strings.Contains(body, "ci runner") || strings.Contains(body, "bot") {
		t.Fatalf("globex revokes acme's key: %d %s", code, body)
	}
	if code, body, _ := s.call(t, globex, "GET", "/api/v1/keys", ""); code != http.StatusOK || strings.Contains(body, "acme") || strings.Contains(body, made.ID) || !strings.Contains(body, "globex-admin") {
		t.Fatalf("globex lists: %d %s", code, body)
	}
	if code, _, _ := s.call(t, made.Secret, "GET", "/api/v1/threads", ""); code != http.StatusOK {
		t.Fatalf("acme's key after globex's attempt: %d", code)
	}

	// Revoked: refused at once; revoking again changes nothing.
	var revoked, again createdKey
	code, body, _ = s.call(t, acme, "DELETE", "/api/v1/keys/"+made.ID, "")
	if err := jsonUnmarshal(body, &revoked); code != http.StatusOK || err != nil || revoked.RevokedAt == nil || revoked.Secret != "" {
		t.Fatalf("revoke: %d %s", code, body)
	}
	if code, body, _ := s.call(t, made.Secret, "GET", "/api/v1/threads", ""); code != http.StatusUnauthorized || !strings.Contains(body, "revoked") {
		t.Fatalf("the revoked key: %d %s", code, body)
	}
	code, body, _ = s.call(t, acme, "DELETE", "/api/v1/keys/"+made.ID, "")
	if err := jsonUnmarshal(body, &again); code != http.StatusOK || err != nil || again.RevokedAt == nil || *again.RevokedAt != *revoked.RevokedAt {
		t.Fatalf("revoke again: %d %s (first %v)", code, body, *revoked.RevokedAt)
	}
	if code, _, _ := s.call(t, acme, "DELETE", "/api/v1/keys/not-a-key", ""); code != http.StatusNotFound {
		t.Fatalf("revoke a malformed id: %d", code)
	}

	// An admin key makes an admin key acting as itself when no user is named.
	code, body, _ = s.call(t, acme, "POST", "/api/v1/keys", `{"name":"second admin","user":"  ","admin":true}`)
	if err := jsonUnmarshal(body, &made); code != http.StatusCreated || err != nil || made.Role != "admin" || made.User != "ann" {
		t.Fatalf("second admin: %d %s", code, body)
	}
	if code, _, _ := s.call(t, made.Secret, "GET", "/api/v1/keys", ""); code != http.StatusOK {
		t.Fatalf("the second admin lists: %d", code)
	}
}
