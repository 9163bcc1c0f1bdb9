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
	"strings"
	"text/tabwriter"
	"time"

	"yakor"
	"yakor/account"
	"yakor/app"
)

// runBenchAPI measures what the OpenAI-compatible endpoint costs over the
// native API: a real server on loopback HTTP, the offline model, and turns
// alternating between POST /api/v1/threads/{id}/messages and
// POST /v1/chat/completions (one thread each, the same messages, growing
// alike), non-streamed and streamed. The time is the client's, from sending
// the request to reading the whole reply.
func runBenchAPI(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlagSet("api", args, stdout, stderr)
	turns := fs.Int("turns", 300, "turns measured on each path, in each mode (non-streamed, streamed)")
	cfg, err := parseFlags(fs, args, getenv)
	if err != nil {
		return err
	}
	if *turns < 1 {
		return fmt.Errorf("bench api: --turns must be at least 1")
	}
	db, log, err := openDatabase(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer db.Close()
	scope, err := account.NewStore(db.Owner).CreateTenantUser(ctx, "bench api")
	if err != nil {
		return err
	}
	defer deleteTenant(db.Database, scope.TenantID)
	url, stop, err := benchAPIServer(ctx, db, turnConfig(cfg, cfg.AnchorMode), log, scope)
	if err != nil {
		return err
	}
	defer stop()
	times, err := benchAPI(ctx, url, *turns, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "yakor bench api: a turn through POST /v1/chat/completions and through POST /api/v1/threads/{id}/messages, offline model, loopback HTTP, %d turns each, client-side time to the whole reply\n\n", *turns)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "path\tmode\tturns\tp50\tp99\t")
	for _, name := range []string{"native json", "openai json", "native stream", "openai stream"} {
		path, mode, _ := strings.Cut(name, " ")
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.2f ms\t%.2f ms\t\n", path, mode, len(times[name]), times[name].pct(50), times[name].pct(99))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	for _, mode := range []string{"json", "stream"} {
		n, o := times["native "+mode], times["openai "+mode]
		fmt.Fprintf(stdout, "openai over native, %s: p50 %+.2f ms (×%.2f), p99 %+.2f ms (×%.2f)\n", mode,
			o.pct(50)-n.pct(50), o.pct(50)/n.pct(50), o.pct(99)-n.pct(99), o.pct(99)/n.pct(99))
	}
	return nil
}

// benchAPI runs turns on each path and mode against the server at url,
// after 10 of warm-up, and returns their times by path and mode.
func benchAPI(ctx context.Context, url string, turns int, stderr io.Writer) (map[string]samples, error) {
	b := &apiBench{url: url, client: &http.Client{Timeout: time.Minute}}
	var err error
	if b.thread, err = b.nativeThread(ctx); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(11, 7))
	const warmup = 10
	fmt.Fprintf(stderr, "bench api: %d turns on each path and mode (after %d of warm-up)…\n", turns, warmup)
	times := map[string]samples{}
	for i := range turns + warmup {
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
				return nil, fmt.Errorf("bench api: %s turn %d: %w", run.name, i, err)
			}
			if i >= warmup {
				times[run.name] = append(times[run.name], ms(time.Since(start)))
			}
		}
	}
	return times, nil
}

// benchAPIServer serves Yakor's HTTP interface, built by app.New with cfg
// (turnConfig: post-turn jobs enqueued, not worked, as a separate worker
// fleet would take them), for scope as the local user on a loopback port.
// It returns the server's URL and its stop.
func benchAPIServer(ctx context.Context, db *database, cfg app.Config, log *slog.Logger, scope yakor.Scope) (string, func(), error) {
	a, err := newApp(ctx, cfg, log, db.Database, app.WithLocalScope(scope))
	if err != nil {
		return "", nil, err
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	hs := &http.Server{Handler: a.Server, ReadHeaderTimeout: 10 * time.Second}
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
