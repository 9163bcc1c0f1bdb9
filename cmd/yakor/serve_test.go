package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"yakor/app/apptest"
	"yakor/postgres/pgtest"
)

// These tests run the real binary on its embedded default: a private
// PostgreSQL cluster in a temporary data folder, the offline model.

var yakorBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "yakor-bin")
	if err != nil {
		panic(err)
	}
	if yakorBin, err = apptest.BuildBinary(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type server struct {
	cmd  *exec.Cmd
	addr string
	log  *syncBuffer
}

// syncBuffer is the server's output, written by its pipes' goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// startServer runs `yakor serve` on a port of the kernel's choosing (the
// address it prints) and waits until it is ready.
func startServer(t *testing.T, dir string, flags ...string) *server {
	t.Helper()
	s := &server{log: &syncBuffer{}}
	s.cmd = exec.Command(yakorBin, append([]string{"serve", "--data-dir", dir, "--addr", "127.0.0.1:0"}, flags...)...)
	s.cmd.Env = append(os.Environ(), "DATABASE_URL=", "OPENAI_BASE_URL=", "YAKOR_CHAT_MODEL=")
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.cmd.Stderr = s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			_ = s.cmd.Process.Signal(syscall.SIGTERM)
			_ = s.cmd.Wait()
		}
	})
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			fmt.Fprintln(s.log, sc.Text())
			if a, ok := strings.CutPrefix(sc.Text(), "yakor listening on http://"); ok {
				listening <- a
			}
		}
	}()
	select {
	case s.addr = <-listening:
	case <-time.After(60 * time.Second):
		t.Fatalf("yakor serve did not start listening:\n%s", s.log)
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get("http://" + s.addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("yakor serve did not become ready:\n%s", s.log)
	return nil
}

// stop sends sig and waits for the process to exit.
func (s *server) stop(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := s.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if sig == syscall.SIGTERM && err != nil {
			t.Fatalf("yakor exited with %v after SIGTERM:\n%s", err, s.log)
		}
	case <-time.After(40 * time.Second):
		t.Fatalf("yakor did not exit after %v:\n%s", sig, s.log)
	}
}

// call sends a JSON request to the server and decodes its answer into out
// (when not nil); it returns the status.
func (s *server) call(t *testing.T, method, path, body string, out any) int {
	t.Helper()
	return s.callKey(t, "", method, path, body, out)
}

// callKey is call with an API key ("" sends none).
func (s *server) callKey(t *testing.T, key, method, path, body string, out any) int {
	t.Helper()
	return apptest.Call(t, "http://"+s.addr, key, method, path, body, out).Status
}

type listed struct {
	Messages []struct {
		ID      int64
		Role    string
		Content string
	}
}

func (s *server) messages(t *testing.T, thread string) listed {
	t.Helper()
	var l listed
	if code := s.call(t, "GET", "/api/v1/threads/"+thread+"/messages", "", &l); code != http.StatusOK {
		t.Fatalf("list messages: %d", code)
	}
	return l
}

func checkConversation(t *testing.T, l listed, sent []string) {
	t.Helper()
	if len(l.Messages) != 2*len(sent) {
		t.Fatalf("%d messages, want %d", len(l.Messages), 2*len(sent))
	}
	for i, want := range sent {
		if u, r := l.Messages[2*i], l.Messages[2*i+1]; u.Role != "user" || u.Content != want || r.Role != "assistant" || r.Content == "" {
			t.Fatalf("exchange %d: %+v / %+v", i, u, r)
		}
	}
}

// TestServeConversationSurvivesRestart: a scripted conversation, a clean
// stop, a new start on the same folder, and everything is still there.
func TestServeConversationSurvivesRestart(t *testing.T) {
	dir := pgtest.DataDir(t)
	s := startServer(t, dir)
	var th struct{ ID string }
	if code := s.call(t, "POST", "/api/v1/threads", `{"title":"restart"}`, &th); code != http.StatusCreated {
		t.Fatalf("create thread: %d", code)
	}
	sent := []string{"Прайс: ЛДСП 3400 руб за лист.", "Доставка 900 руб.", "Сколько стоит ЛДСП с доставкой?"}
	for _, c := range sent {
		if code := s.call(t, "POST", "/api/v1/threads/"+th.ID+"/messages", `{"content":"`+c+`"}`, nil); code != http.StatusOK {
			t.Fatalf("send: %d", code)
		}
	}
	checkConversation(t, s.messages(t, th.ID), sent)
	s.stop(t, syscall.SIGTERM)
	if _, err := os.Stat(filepath.Join(dir, "pg", "postmaster.pid")); !os.IsNotExist(err) {
		t.Fatalf("PostgreSQL was not stopped cleanly with yakor (postmaster.pid: %v)", err)
	}

	s = startServer(t, dir)
	checkConversation(t, s.messages(t, th.ID), sent)
}

// TestServeSurvivesSIGKILL: yakor and its PostgreSQL are killed outright,
// leaving a stale postmaster.pid; the next start recovers with all data.
func TestServeSurvivesSIGKILL(t *testing.T) {
	dir := pgtest.DataDir(t)
	s := startServer(t, dir)
	var th struct{ ID string }
	s.call(t, "POST", "/api/v1/threads", `{"title":"kill"}`, &th)
	sent := []string{"remember the number 73105"}
	if code := s.call(t, "POST", "/api/v1/threads/"+th.ID+"/messages", `{"content":"`+sent[0]+`"}`, nil); code != http.StatusOK {
		t.Fatalf("send: %d", code)
	}

	pidFile := filepath.Join(dir, "pg", "postmaster.pid")
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pgPID, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pgPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	s.stop(t, syscall.SIGKILL)
	for i := 0; syscall.Kill(pgPID, 0) == nil && i < 100; i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := os.Stat(pidFile); err != nil {
		t.Fatalf("the crash should leave a stale postmaster.pid: %v", err)
	}

	s = startServer(t, dir)
	checkConversation(t, s.messages(t, th.ID), sent)
	if code := s.call(t, "POST", "/api/v1/threads/"+th.ID+"/messages", `{"content":"and now?"}`, nil); code != http.StatusOK {
		t.Fatalf("send after recovery: %d", code)
	}
}

// TestServeAbandonsTurnsAfterCrash: yakor is killed while a turn waits for
// the model. The next start records that turn as failed (its own private
// cluster has no other server that could be running it), so the message,
// sent again, is answered at once, not refused as being answered.
func TestServeAbandonsTurnsAfterCrash(t *testing.T) {
	release := make(chan struct{})
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // never answers while the test runs
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(model.Close)
	t.Cleanup(func() { close(release) })
	dir := pgtest.DataDir(t)
	s := startServer(t, dir, "--openai-base-url", model.URL+"/v1", "--chat-model", "slow-1")
	var th struct{ ID string }
	s.call(t, "POST", "/api/v1/threads", `{"title":"crash"}`, &th)
	const body = `{"content":"remember the number 73105","client_id":"c-1"}`
	go func() { // cut off by the kill; its answer does not matter
		resp, err := http.Post("http://"+s.addr+"/api/v1/threads/"+th.ID+"/messages", "application/json", strings.NewReader(body))
		if err == nil {
			resp.Body.Close()
		}
	}()
	for running := 0; running == 0; time.Sleep(100 * time.Millisecond) {
		query(t, dir, `SELECT count(*) FROM turns WHERE status = 'running'`, &running)
	}
	s.stop(t, syscall.SIGKILL)

	s = startServer(t, dir)
	checkWhole(t, dir)
	var why string
	query(t, dir, `SELECT error FROM turns`, &why)
	if !strings.Contains(why, "abandoned") {
		t.Fatalf("the turn cut off is recorded with %q", why)
	}
	if code := s.call(t, "POST", "/api/v1/threads/"+th.ID+"/messages", body, nil); code != http.StatusOK {
		t.Fatalf("send again: %d", code)
	}
	if l := s.messages(t, th.ID); len(l.Messages) != 2 || l.Messages[0].Content != "remember the number 73105" {
		t.Fatalf("messages %+v, want the message once and its answer", l.Messages)
	}
}

func TestServeRefusesNonLoopback(t *testing.T) {
	var stderr bytes.Buffer
	url, _ := pgtest.NewURL(t)
	err := run(t.Context(), []string{"serve", "--addr", "0.0.0.0:0", "--database-url", url}, io.Discard, &stderr, func(string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), "without API keys") || !strings.Contains(err.Error(), "yakor keys create") {
		t.Fatalf("err = %v", err)
	}
}

// callKeyAs is callKey without a key, for the end user the app calls user
// (X-Yakor-User).
func (s *server) callKeyAs(t *testing.T, user, method, path, body string, out any) int {
	t.Helper()
	return apptest.Call(t, "http://"+s.addr, "", method, path, body, out, "X-Yakor-User", user).Status
}
