package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"yakor/postgres/pgtest"
)

// nodeFor is the node that runs the client tests and the folder of their
// packages (scripts/setup.sh test installs both), failing the test when
// either, or one of the packages, is missing.
func nodeFor(t *testing.T, packages ...string) (node, dir string) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(root, ".yakor-test", "node")
	node = filepath.Join(dir, "bin", "node")
	if _, err := os.Stat(node); err != nil {
		t.Fatalf("node is missing from %s (%v): run `bash scripts/setup.sh test`", node, err)
	}
	for _, p := range packages {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", p, "package.json")); err != nil {
			t.Fatalf("the npm package %s is missing from %s (%v): run `bash scripts/setup.sh test`", p, dir, err)
		}
	}
	return node, dir
}

// TestOpenAINpmClient runs the official openai npm client
// (testdata/openai_client.mjs, on node) against `yakor serve` with the
// offline model: a non-streamed and a streamed conversation whose second
// request is answered from the memory the first made, and two refusals.
// node and the package come from `bash scripts/setup.sh test`; without
// them the test fails, never skips.
func TestOpenAINpmClient(t *testing.T) {
	node, nodeDir := nodeFor(t, "openai")
	s := startServer(t, pgtest.DataDir(t))

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "openai_client.mjs"))
	cmd.Env = append(os.Environ(), "YAKOR_BASE_URL=http://"+s.addr+"/v1", "YAKOR_NODE_DIR="+nodeDir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the openai client failed: %v\n%s\nserver log:\n%s", err, stderr.String(), s.log)
	}
	var got struct {
		Ann, Bob           string
		AnnUser, BobUser   string // the end users the user field named
		AnnReply, BobReply string
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("client output %q: %v", stdout.String(), err)
	}
	t.Logf("second replies: %q / %q", got.AnnReply, got.BobReply)
	for _, c := range []struct {
		user, thread string
		sent         []string
	}{
		{got.AnnUser, got.Ann, []string{"The oak table costs 48200 rubles.", "What does the oak table cost?"}},
		{got.BobUser, got.Bob, []string{"The delivery code is ZX-7741.", "What is the delivery code?"}},
	} {
		var l listed
		if code := s.callKeyAs(t, c.user, "GET", "/api/v1/threads/"+c.thread+"/messages", "", &l); code != http.StatusOK {
			t.Fatalf("%s's messages: %d", c.user, code)
		}
		checkConversation(t, l, c.sent)
	}
	var th struct {
		SystemPrompt string `json:"system_prompt"`
	}
	s.callKeyAs(t, got.AnnUser, "GET", "/api/v1/threads/"+got.Ann, "", &th)
	if !strings.Contains(th.SystemPrompt, "furniture shop") {
		t.Fatalf("system prompt %q", th.SystemPrompt)
	}
}
