package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"yakor/postgres/pgtest"
)

// TestKeysCommand: a key is made (shown once, stored hashed), listed
// without its secret, and revoked.
func TestKeysCommand(t *testing.T) {
	url, _ := pgtest.NewURL(t)
	keys := func(args ...string) (string, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), append(append([]string{"keys"}, args...), "--database-url", url, "--log-level", "warn"), &stdout, &stderr, func(string) string { return "" }); err != nil {
			t.Fatalf("keys %v: %v\n%s", args, err, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	secret, note := keys("create", "--tenant", "acme", "--user", "ann", "--name", "laptop", "--rate", "30")
	secret = strings.TrimSpace(secret)
	if !strings.HasPrefix(secret, "yk_") || len(secret) < 40 || !strings.Contains(note, "shown this once") {
		t.Fatalf("create: %q %q", secret, note)
	}
	admin, note := keys("create", "--tenant", "acme", "--user", "ann", "--name", "ops", "--admin")
	if !strings.HasPrefix(admin, "yk_") || !strings.Contains(note, "admin key") {
		t.Fatalf("create --admin: %q %q", admin, note)
	}
	backend, note := keys("create", "--tenant", "acme", "--user", "shop", "--name", "server", "--role", "backend")
	if !strings.HasPrefix(backend, "yk_") || !strings.Contains(note, "backend key") {
		t.Fatalf("create --role backend: %q %q", backend, note)
	}
	list, _ := keys("list")
	if !strings.Contains(list, "ROLE") || !strings.Contains(list, " admin ") || !strings.Contains(list, " user ") || !strings.Contains(list, " backend ") {
		t.Fatalf("list does not tell the keys' roles:\n%s", list)
	}
	if !strings.Contains(list, "acme") || !strings.Contains(list, "laptop") || !strings.Contains(list, secret[:9]) || strings.Contains(list, secret[9:]) {
		t.Fatalf("list:\n%s", list)
	}
	// Newest first: the backend key, the admin key, then the first one.
	row := strings.Split(list, "\n")[3]
	if !strings.Contains(row, "laptop") {
		t.Fatalf("not newest first:\n%s", list)
	}
	id := strings.Fields(row)[0]
	if out, _ := keys("revoke", id); !strings.Contains(out, "revoked") {
		t.Fatalf("revoke: %q", out)
	}
	list, _ = keys("list")
	if row := strings.Fields(strings.Split(list, "\n")[3]); row[len(row)-1] == "-" {
		t.Fatalf("revoked key not marked:\n%s", list)
	}
	var stderr bytes.Buffer
	if err := run(context.Background(), []string{"keys", "revoke", "00000000-0000-0000-0000-000000000000", "--database-url", url}, &bytes.Buffer{}, &stderr, func(string) string { return "" }); err == nil {
		t.Fatal("revoking an unknown key succeeded")
	}
}

// TestKeysBesideServe: `yakor keys create` and `keys list`, given the data
// folder a running yakor serve owns, use that server's PostgreSQL through
// its socket and never stop it: a client sending turns all the while sees
// no failure (no 503) and the server logs no error.
func TestKeysBesideServe(t *testing.T) {
	dir := pgtest.DataDir(t)
	s := startServer(t, dir)
	keys := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(yakorBin, append(append([]string{"keys"}, args...), "--data-dir", dir)...)
		cmd.Env = append(os.Environ(), "DATABASE_URL=")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("keys %v: %v\n%s", args, err, stderr.String())
		}
		return strings.TrimSpace(stdout.String())
	}
	key := keys("create", "--tenant", "acme", "--rate", "100000")
	// The server notices a key made elsewhere within 2 s: until then a
	// request without one is still the local user's.
	for deadline := time.Now().Add(10 * time.Second); s.callKey(t, "", "GET", "/api/v1/threads", "", nil) != http.StatusUnauthorized; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server never noticed the key")
		}
	}
	var th struct{ ID string }
	if code := s.callKey(t, key, "POST", "/api/v1/threads", `{"title":"beside"}`, &th); code != http.StatusCreated {
		t.Fatalf("create thread: %d", code)
	}
	stop := make(chan struct{})
	statuses := make(chan int, 1000)
	go func() {
		defer close(statuses)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			statuses <- s.callKey(t, key, "POST", "/api/v1/threads/"+th.ID+"/messages", fmt.Sprintf(`{"content":"turn %d: the board costs 3400"}`, i), nil)
		}
	}()
	for i := range 5 {
		keys("create", "--tenant", fmt.Sprintf("beside-%d", i))
		if list := keys("list"); !strings.Contains(list, fmt.Sprintf("beside-%d", i)) {
			t.Fatalf("keys list lacks the key just made:\n%s", list)
		}
	}
	close(stop)
	turns := 0
	for code := range statuses {
		turns++
		if code != http.StatusOK {
			t.Errorf("a turn beside the keys commands answered %d", code)
		}
	}
	if turns < 5 {
		t.Fatalf("only %d turns were sent while the commands ran", turns)
	}
	for _, bad := range []string{"level=ERROR", "stopping postgres", "the private PostgreSQL stopped"} {
		if strings.Contains(s.log.String(), bad) {
			t.Fatalf("the server logged %q:\n%s", bad, s.log)
		}
	}
}
