package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

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
	list, _ := keys("list")
	if !strings.Contains(list, "ADMIN") || !strings.Contains(list, " yes ") || !strings.Contains(list, " no ") {
		t.Fatalf("list does not tell admin keys:\n%s", list)
	}
	if !strings.Contains(list, "acme") || !strings.Contains(list, "laptop") || !strings.Contains(list, secret[:9]) || strings.Contains(list, secret[9:]) {
		t.Fatalf("list:\n%s", list)
	}
	// Newest first: the admin key, then the first one.
	row := strings.Split(list, "\n")[2]
	if !strings.Contains(row, "laptop") {
		t.Fatalf("not newest first:\n%s", list)
	}
	id := strings.Fields(row)[0]
	if out, _ := keys("revoke", id); !strings.Contains(out, "revoked") {
		t.Fatalf("revoke: %q", out)
	}
	list, _ = keys("list")
	if row := strings.Fields(strings.Split(list, "\n")[2]); row[len(row)-1] == "-" {
		t.Fatalf("revoked key not marked:\n%s", list)
	}
	var stderr bytes.Buffer
	if err := run(context.Background(), []string{"keys", "revoke", "00000000-0000-0000-0000-000000000000", "--database-url", url}, &bytes.Buffer{}, &stderr, func(string) string { return "" }); err == nil {
		t.Fatal("revoking an unknown key succeeded")
	}
}
