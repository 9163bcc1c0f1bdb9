package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"yakor"
	"yakor/account"
	"yakor/anchors"
	"yakor/facts"
	"yakor/history"
	"yakor/jobs"
	"yakor/llm"
	"yakor/mnemos"
	"yakor/turn"
	"yakor/web"
)

// runBenchAPI measures what the OpenAI-compatible endpoint costs over the
// native API: a real server on loopback HTTP, the offline model, and turns
// alternating between POST /api/v1/threads/{id}/messages and
// POST /v1/chat/completions (one thread each, the same messages, growing
// alike), non-streamed and streamed. The time is the client's, from sending
// the request to reading the whole reply.
func runBenchAPI(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlagSet("bench api", args, stdout, stderr)
	turns := fs.Int("turns", 300, "turns measured on each path, in each mode (non-streamed, streamed)")
	benchDir := fs.String("bench-dir", "./.yakor-bench", "private cluster folder for the benchmark (used without DATABASE_URL)")
	cfg, err := parseConfig(fs, args, getenv)
	if err != nil {
		return err
	}
	if *turns < 1 {
		return fmt.Errorf("bench api: --turns must be at least 1")
	}
	cfg.DataDir = *benchDir
	db, log, err := openBenchDatabase(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer db.close(log)
	scope, err := account.NewStore(db.pool).CreateTenantUser(ctx, "bench api")
	if err != nil {
		return err
	}
	defer func() {
		_, _ = db.pool.Exec(context.Background(), `DELETE FROM tenants WHERE id = $1`, scope.TenantID)
	}()
	url, stop, err := benchAPIServer(ctx, db, cfg, log, scope)
	if err != nil {
		return err
	}
	defer stop()

	b := &apiBench{url: url, client: &http.Client{Timeout: time.Minute}}
	if b.thread, err = b.nativeThread(ctx); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(11, 7))
	const warmup = 10
	fmt.Fprintf(stderr, "bench api: %d turns on each path and mode (after %d of warm-up)…\n", *turns, warmup)
	times := map[string][]float64{}
	for i := range *turns + warmup {
		text := benchText(rng)
		for _, run := range []struct {
			name string
			call func(context.Context, string) error
		}{
			{"native json", b.native(false)}, {"openai json", b.openAI(false)},
			{"native stream", b.native(true)}, {"openai stream", b.openAI(true)},
		} {
			start := time.Now()
			if err := run.call(ctx, text); err != nil {
				return fmt.Errorf("bench api: %s turn %d: %w", run.name, i, err)
			}
			if i >= warmup {
				times[run.name] = append(times[run.name], ms(time.Since(start)))
			}
		}
	}

	fmt.Fprintf(stdout, "yakor bench api: a turn through POST /v1/chat/completions and through POST /api/v1/threads/{id}/messages, offline model, loopback HTTP, %d turns each, client-side time to the whole reply\n\n", *turns)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "path\tmode\tturns\tp50\tp99\t")
	for _, name := range []string{"native json", "openai json", "native stream", "openai stream"} {
		slices.Sort(times[name])
		path, mode, _ := strings.Cut(name, " ")
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.2f ms\t%.2f ms\t\n", path, mode, len(times[name]), pct(times[name], 50), pct(times[name], 99))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	for _, mode := range []string{"json", "stream"} {
		n, o := times["native "+mode], times["openai "+mode]
		fmt.Fprintf(stdout, "openai over native, %s: p50 %+.2f ms (×%.2f), p99 %+.2f ms (×%.2f)\n", mode,
			pct(o, 50)-pct(n, 50), pct(o, 50)/pct(n, 50), pct(o, 99)-pct(n, 99), pct(o, 99)/pct(n, 99))
	}
	return nil
}

// benchAPIServer serves the web API for scope (as the local user) on a
// loopback port with every layer a served turn has; post-turn jobs are
// enqueued, not worked, as a separate worker fleet would take them. It
// returns the server's URL and its stop.
func benchAPIServer(ctx context.Context, db *database, cfg Config, log *slog.Logger, scope yakor.Scope) (string, func(), error) {
	anchorSvc := anchors.NewService(db.svc, anchors.ServiceConfig{}, nil, log, nil)
	queue, err := jobs.New(db.pool, jobs.Config{Workers: 0, Logger: log}, jobs.Workers{Anchors: anchorSvc})
	if err != nil {
		return "", nil, err
	}
	memory := mnemos.NewStore(db.svc, mnemos.NewSpace(db.pool, llm.NewOffline(), log), mnemos.Config{}, log, nil)
	engine := turn.NewEngine(db.svc, llm.NewOffline(), turn.Config{WindowChars: cfg.WindowChars}, log, nil).
		WithAnchors(anchorSvc).WithMemory(memory, 3000).WithFacts(facts.NewStore(db.svc, facts.Config{}, log)).WithJobs(queue)
	reg := prometheus.NewRegistry()
	srv := web.NewServer(web.Deps{
		Log: log, Turns: engine, Threads: history.NewStore(db.svc), DB: db.svc, Gatherer: reg, Registerer: reg,
		LocalScope: scope, Info: web.Info{Chat: web.ModelInfo{Provider: "offline", Model: "offline"}, Offline: true},
	})
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() { _ = hs.Close() }, nil
}

// apiBench sends the benchmark's requests.
type apiBench struct {
	url    string
	client *http.Client
	thread string // the native API's thread
}

func (b *apiBench) nativeThread(ctx context.Context) (string, error) {
	var th struct{ ID string }
	body, err := b.post(ctx, "/api/v1/threads", `{"title":"bench api"}`, "")
	if err == nil {
		err = json.Unmarshal(body, &th)
	}
	return th.ID, err
}

// native is one turn through the native API.
func (b *apiBench) native(stream bool) func(context.Context, string) error {
	return func(ctx context.Context, text string) error {
		body, _ := json.Marshal(map[string]string{"content": text})
		accept := ""
		if stream {
			accept = "text/event-stream"
		}
		out, err := b.post(ctx, "/api/v1/threads/"+b.thread+"/messages", string(body), accept)
		if err != nil {
			return err
		}
		if stream && !bytes.Contains(out, []byte("event: done\n")) {
			return errors.New("the stream ended without its done event")
		}
		return nil
	}
}

// openAI is one turn through the OpenAI-compatible endpoint, in the thread
// the user field names.
func (b *apiBench) openAI(stream bool) func(context.Context, string) error {
	return func(ctx context.Context, text string) error {
		req := map[string]any{"model": "yakor", "user": "bench-api", "messages": []any{map[string]string{"role": "user", "content": text}}}
		if stream {
			req["stream"] = true
		}
		body, _ := json.Marshal(req)
		out, err := b.post(ctx, "/v1/chat/completions", string(body), "")
		if err != nil {
			return err
		}
		if stream && !bytes.HasSuffix(bytes.TrimSpace(out), []byte("data: [DONE]")) {
			return errors.New("the stream ended without [DONE]")
		}
		return nil
	}
}

// post sends a request and reads the whole reply, which must be 2xx.
func (b *apiBench) post(ctx context.Context, path, body, accept string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", b.url+path, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer sk-bench")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(bufio.NewReader(resp.Body))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%s: status %d: %s", path, resp.StatusCode, out)
	}
	return out, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
