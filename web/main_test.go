package web_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"yakor"
	"yakor/anchors"
	"yakor/app"
	"yakor/app/apptest"
	"yakor/llm"
	"yakor/mnemos"
	"yakor/postgres"
	"yakor/postgres/pgtest"
	"yakor/sufler"
	"yakor/turn"
	"yakor/web"
)

// stack is the whole of Yakor (router, engine, stores, job queue), built
// by app.New as yakor serve builds it, serving real HTTP on a fresh
// database.
type stack struct {
	URL   string
	pool  *pgxpool.Pool // the owner's, not held by row-level security: set-up and checks
	svc   *postgres.DB  // the service role's, which the server's stores use
	scope yakor.Scope   // the caller every request acts as, without a key
	srv   *web.Server
}

func mustStack(tb testing.TB, model turn.Model, cfg turn.Config) *stack {
	tb.Helper()
	return newStack(tb, stackOptions{model: model, cfg: cfg})
}

// mustStackHelper is mustStack with a helper model for the anchors.
func mustStackHelper(tb testing.TB, model turn.Model, helper anchors.Completer, cfg turn.Config) *stack {
	tb.Helper()
	return newStack(tb, stackOptions{model: model, anchorHelper: helper, cfg: cfg})
}

type stackOptions struct {
	model        turn.Model        // nil: offline
	anchorHelper anchors.Completer // nil: the offline extractor
	// helpers, when set, are every job's helper model (anchorHelper and
	// grader are then not used).
	helpers *app.Helpers
	grader  sufler.Completer // nil: the offline grader (and research notes)
	// cfg's non-zero fields override the settings' defaults.
	cfg    turn.Config
	memory mnemos.Config
	// share shares another stack's database; scope then names the caller
	// (e.g. a second tenant). Without them: a fresh database, the local user.
	share *stack
	scope yakor.Scope
	// searxng is the research source; "" leaves research without one.
	searxng string
	// compact runs compaction after turns (off: the scenarios that need
	// the first exchange to scroll out).
	compact bool
	// cors is --cors-origins.
	cors string
	// keys: the test makes API keys (the server checks them once one
	// exists, as yakor serve does, whether or not this is set).
	keys bool
}

// settings are the app's settings of o: apptest's, with what o changes.
func (o stackOptions) settings() app.Config {
	c := apptest.Config()
	if o.cfg.WindowChars > 0 {
		c.WindowChars = o.cfg.WindowChars
	}
	if o.cfg.MaxMessageChars > 0 {
		c.MaxMessageChars = o.cfg.MaxMessageChars
	}
	if o.cfg.SearchRounds > 0 {
		c.SearchRounds = o.cfg.SearchRounds
	}
	if o.cfg.AnchorMode != "" {
		c.AnchorMode = o.cfg.AnchorMode
	}
	c.SearchTool, c.Compaction, c.SearXNGURL, c.CORSOrigins = o.cfg.SearchTool, o.compact, o.searxng, o.cors
	return c
}

func newStack(tb testing.TB, o stackOptions) *stack {
	tb.Helper()
	var pool *pgxpool.Pool
	var svc *postgres.DB
	if o.share != nil {
		pool, svc = o.share.pool, o.share.svc
	} else {
		pool, svc = pgtest.NewService(tb)
	}
	opts := []app.Option{
		app.WithDatabase(&app.Database{Owner: pool, Tenant: svc}),
		app.WithHelpers(*cmp.Or(o.helpers, &app.Helpers{Anchors: o.anchorHelper, Grader: o.grader, Research: o.grader})),
		app.WithTuning(func(t *app.Tuning) {
			t.Memory = o.memory
			t.Compact.MinSave = 200
		}),
	}
	if o.model != nil {
		opts = append(opts, app.WithChatModel(o.model))
	}
	if o.share != nil {
		opts = append(opts, app.WithLocalScope(o.scope))
	}
	a := apptest.Start(tb, o.settings(), opts...)
	return &stack{URL: a.URL, pool: pool, svc: svc, scope: a.Local, srv: a.Server}
}

// do sends a request and decodes a JSON response into out (when not nil).
func (s *stack) do(tb testing.TB, method, path, body string, out any) int {
	tb.Helper()
	return apptest.Call(tb, s.URL, "", method, path, body, out).Status
}

func (s *stack) mustThread(tb testing.TB) string {
	tb.Helper()
	var th struct{ ID string }
	if code := s.do(tb, "POST", "/api/v1/threads", `{"title":"t"}`, &th); code != http.StatusCreated {
		tb.Fatalf("create thread: %d", code)
	}
	return th.ID
}

// counts returns the number of rows of each table, to prove a refused
// request wrote nothing.
func (s *stack) counts(tb testing.TB) map[string]int {
	tb.Helper()
	out := map[string]int{}
	for _, table := range []string{"threads", "messages", "turns", "projects"} {
		var n int
		if err := s.pool.QueryRow(context.Background(), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
			tb.Fatal(err)
		}
		out[table] = n
	}
	return out
}

type sseEvent struct {
	name string
	data map[string]any
}

// stream sends a message with Accept: text/event-stream and returns the
// status and the events.
func (s *stack) stream(tb testing.TB, thread, body string) (int, []sseEvent) {
	tb.Helper()
	req, _ := http.NewRequest("POST", s.URL+"/api/v1/threads/"+thread+"/messages", strings.NewReader(body))
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp.StatusCode, nil
	}
	return resp.StatusCode, parseSSE(tb, string(raw))
}

// parseSSE splits a native stream into its events.
func parseSSE(tb testing.TB, raw string) []sseEvent {
	tb.Helper()
	var events []sseEvent
	for _, block := range strings.Split(strings.TrimSpace(raw), "\n\n") {
		var ev sseEvent
		for _, line := range strings.Split(block, "\n") {
			if name, ok := strings.CutPrefix(line, "event: "); ok {
				ev.name = name
			} else if data, ok := strings.CutPrefix(line, "data: "); ok {
				if err := json.Unmarshal([]byte(data), &ev.data); err != nil {
					tb.Fatalf("event data %q: %v", data, err)
				}
			}
		}
		events = append(events, ev)
	}
	return events
}

// fakeOpenAI is an OpenAI-compatible chat server whose behaviour per
// request is set by handle.
type fakeOpenAI struct {
	*httptest.Server
	handle func(w http.ResponseWriter, r *http.Request, n int)
	n      atomic.Int32 // requests served
}

func newFakeOpenAI(tb testing.TB, handle func(w http.ResponseWriter, r *http.Request, n int)) *fakeOpenAI {
	f := &fakeOpenAI{handle: handle}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.handle(w, r, int(f.n.Add(1)))
	}))
	tb.Cleanup(f.Close)
	return f
}

// requestLog keeps the decoded JSON bodies of the requests a fake model
// server was sent, for a test to look at what each pass asked.
type requestLog struct {
	mu   sync.Mutex
	reqs []map[string]any
}

// record reads r's body, keeps it decoded and returns it.
func (l *requestLog) record(r *http.Request) map[string]any {
	var req map[string]any
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &req)
	l.mu.Lock()
	l.reqs = append(l.reqs, req)
	l.mu.Unlock()
	return req
}

// take returns the requests kept so far and forgets them.
func (l *requestLog) take() []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.reqs
	l.reqs = nil
	return r
}

func (f *fakeOpenAI) model() *llm.OpenAI {
	return llm.NewOpenAI(llm.OpenAIConfig{BaseURL: f.URL + "/v1", Model: "fake-1", Timeout: 2 * time.Second, MaxRetries: 1, MinBackoff: 10 * time.Millisecond})
}

// streamChunks answers a streamed chat request with the deltas, then [DONE]
// unless cut, in which case the connection is closed mid-stream.
func streamChunks(w http.ResponseWriter, deltas []string, cut bool) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, d := range deltas {
		b, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion.chunk", "model": "fake-1",
			"choices": []map[string]any{{"index": 0, "delta": map[string]string{"content": d}}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
		w.(http.Flusher).Flush()
	}
	if cut {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func jsonBody(v any) string {
	var b bytes.Buffer
	_ = json.NewEncoder(&b).Encode(v)
	return b.String()
}

// recallingModel is a chat model server that answers as a model that
// remembers would: a question with the newest earlier user message that
// shares a word of four letters or more with it ("As you said: …"), or "I
// do not know that."; anything else with "Noted, I will keep it in mind."
// Its replies are its own, not the offline model's quotes, so they are
// graded and learned from.
func recallingModel(tb testing.TB) *llm.OpenAI {
	return newFakeOpenAI(tb, func(w http.ResponseWriter, r *http.Request, _ int) {
		var req struct {
			Messages []struct{ Role, Content string }
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &req)
		q := req.Messages[len(req.Messages)-1].Content
		reply := "Noted, I will keep it in mind."
		if strings.Contains(q, "?") {
			reply = "I do not know that."
			for i := len(req.Messages) - 2; i >= 0 && reply == "I do not know that."; i-- {
				m := req.Messages[i]
				for _, w := range strings.Fields(strings.ToLower(strings.Trim(q, "?"))) {
					if m.Role == "user" && len(w) >= 4 && strings.Contains(strings.ToLower(m.Content), w) {
						reply = "As you said: " + m.Content
						break
					}
				}
			}
		}
		streamChunks(w, []string{reply}, false)
	}).model()
}
