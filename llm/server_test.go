package llm_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"yakor/llm"
)

// wireRequest is what the fake server reads from a request body.
type wireRequest struct {
	Path     string         `json:"-"`
	Model    string         `json:"model"`
	Messages []wireMessage  `json:"messages"`
	Stream   bool           `json:"stream"`
	Input    []string       `json:"input"`
	Raw      map[string]any `json:"-"`
}

type wireMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// fakeServer is an httptest.Server speaking OpenAI's chat and embeddings
// endpoints through a per-test handler; it records every request.
type fakeServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []wireRequest
}

// handlerFunc serves the n-th request (1-based).
type handlerFunc func(w http.ResponseWriter, r *http.Request, n int)

func newFakeServer(t *testing.T, h handlerFunc) *fakeServer {
	t.Helper()
	fs := &fakeServer{}
	fs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("read request body: %v", err)
		}
		wr := wireRequest{Path: r.URL.Path}
		if err := json.Unmarshal(body, &wr); err != nil {
			t.Errorf("decode request body %q: %v", body, err)
		}
		if err := json.Unmarshal(body, &wr.Raw); err != nil {
			t.Errorf("decode request body %q: %v", body, err)
		}
		fs.mu.Lock()
		fs.requests = append(fs.requests, wr)
		n := len(fs.requests)
		fs.mu.Unlock()
		h(w, r, n)
	}))
	t.Cleanup(fs.Close)
	return fs
}

// seen returns the requests the server has received so far.
func (fs *fakeServer) seen() []wireRequest {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return append([]wireRequest(nil), fs.requests...)
}

// baseURL is the API root a client should use.
func (fs *fakeServer) baseURL() string { return fs.URL + "/v1" }

// newClient returns a client for fs with test-sized timings; edit adjusts the
// configuration.
func newClient(t *testing.T, fs *fakeServer, edit func(*llm.OpenAIConfig)) *llm.OpenAI {
	t.Helper()
	cfg := llm.OpenAIConfig{
		BaseURL:    fs.baseURL(),
		APIKey:     "sk-test",
		Model:      "test-model",
		Timeout:    5 * time.Second,
		MaxRetries: 3,
		MinBackoff: time.Millisecond,
		MaxBackoff: 5 * time.Second,
		HTTPClient: fs.Client(),
	}
	if edit != nil {
		edit(&cfg)
	}
	return llm.NewOpenAI(cfg)
}

// mustRead returns a file from testdata.
func mustRead(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatalf("read testdata: %v", err)
	}
	return b
}

// writeJSON answers with status and a testdata file.
func writeJSON(tb testing.TB, w http.ResponseWriter, status int, name string) {
	tb.Helper()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(mustRead(tb, name))
}

// sseEvents returns the SSE events of a testdata file, each ending in a blank
// line.
func sseEvents(tb testing.TB, name string) [][]byte {
	tb.Helper()
	var events [][]byte
	sc := bufio.NewScanner(bytes.NewReader(mustRead(tb, name)))
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		events = append(events, append(append([]byte(nil), line...), '\n', '\n'))
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("scan %s: %v", name, err)
	}
	return events
}

// writeStream answers with the SSE events, flushing after each. It stops
// quietly when the client has gone, as a client abandoning a stream may.
func writeStream(tb testing.TB, w http.ResponseWriter, events [][]byte) {
	tb.Helper()
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	for _, ev := range events {
		if _, err := w.Write(ev); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
}

// dropConnection closes the connection under the response without finishing
// it.
func dropConnection(tb testing.TB, w http.ResponseWriter) {
	tb.Helper()
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		tb.Errorf("hijack: %v", err)
		return
	}
	_ = conn.Close()
}
