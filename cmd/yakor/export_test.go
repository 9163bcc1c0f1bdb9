package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"yakor/postgres/pgtest"
)

// TestExportCommand: `yakor export --user` prints the user's data as the
// API's export does, for a user named by the app's id; an unknown user is
// an error.
func TestExportCommand(t *testing.T) {
	url, _ := pgtest.NewURL(t)
	s := startServer(t, pgtest.DataDir(t), "--database-url", url, "--research-schedule", "off", "--log-level", "warn")
	a := func(method, path, body string, out any) int {
		t.Helper()
		return s.callKeyAs(t, "ann", method, path, body, out)
	}
	var th struct{ ID string }
	if code := a("POST", "/api/v1/threads", `{"title":"export me"}`, &th); code != http.StatusCreated {
		t.Fatalf("thread: %d", code)
	}
	if code := a("POST", "/api/v1/threads/"+th.ID+"/messages", `{"content":"My name is Ann. Price list: oak 9000."}`, nil); code != http.StatusOK {
		t.Fatalf("send: %d", code)
	}
	export := func(args ...string) (string, error) {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), append(append([]string{"export"}, args...), "--database-url", url, "--log-level", "warn"), &stdout, &stderr, func(string) string { return "" })
		return stdout.String(), err
	}
	out, err := export("--user", "ann")
	if err != nil {
		t.Fatal(err)
	}
	var ex struct {
		Threads []struct {
			ID       string
			Messages []struct{ Content string }
		}
	}
	if err := json.Unmarshal([]byte(out), &ex); err != nil || len(ex.Threads) != 1 || ex.Threads[0].ID != th.ID ||
		len(ex.Threads[0].Messages) != 2 || !strings.Contains(ex.Threads[0].Messages[0].Content, "9000") {
		t.Fatalf("export: %v\n%s", err, out)
	}
	if _, err := export("--user", "nobody"); err == nil || !strings.Contains(err.Error(), "nobody") {
		t.Fatalf("an unknown user: %v", err)
	}
}
