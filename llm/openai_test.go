package llm_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"yakor/llm"
)

func ptr[T any](v T) *T { return &v }

func TestOpenAIComplete(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeJSON(t, w, http.StatusOK, "chat_completion.json")
	})
	c := newClient(t, fs, nil)
	req := llm.Request{Messages: []llm.Message{
		{Role: "system", Content: "You are Yakor."},
		{Role: "user", Content: "When was the LDSP price list sent?"},
	}}

	res, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	want := llm.Result{
		Text:             "The LDSP price list was sent on Monday.",
		Provider:         "openai",
		Model:            "test-model-2024-01-01",
		PromptTokens:     42,
		CompletionTokens: 9,
		FinishReason:     "stop",
		Attempts:         1,
	}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("Result (-want +got):\n%s", diff)
	}
	seen := fs.seen()
	if len(seen) != 1 {
		t.Fatalf("server saw %d requests, want 1", len(seen))
	}
	wantReq := wireRequest{
		Path:  "/v1/chat/completions",
		Model: "test-model",
		Messages: []wireMessage{
			{Role: "system", Content: "You are Yakor."},
			{Role: "user", Content: "When was the LDSP price list sent?"},
		},
	}
	if diff := cmp.Diff(wantReq, seen[0], cmp.FilterPath(func(p cmp.Path) bool {
		return p.Last().String() == ".Raw"
	}, cmp.Ignore())); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
}

func TestOpenAIRequestOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		model   string
		req     llm.Request
		want    map[string]any // fields that must be present, with their values
		wantNot []string       // fields that must be absent
	}{
		{
			name:    "server defaults",
			model:   "test-model",
			wantNot: []string{"max_tokens", "max_completion_tokens", "temperature"},
		},
		{
			name:    "max tokens and temperature",
			model:   "test-model",
			req:     llm.Request{MaxTokens: 100, Temperature: ptr[float32](0.5)},
			want:    map[string]any{"max_tokens": 100.0, "temperature": 0.5},
			wantNot: []string{"max_completion_tokens"},
		},
		{
			name:  "zero temperature still reaches the server",
			model: "test-model",
			req:   llm.Request{Temperature: ptr[float32](0)},
			want:  map[string]any{"temperature": 1e-45},
		},
		{
			name:  "sampling settings",
			model: "test-model",
			req: llm.Request{TopP: ptr[float32](0), PresencePenalty: ptr[float32](0.5), FrequencyPenalty: ptr[float32](-0.5),
				Stop: []string{"END", "\n\n"}, Seed: ptr(7)},
			want: map[string]any{"top_p": 1e-45, "presence_penalty": 0.5, "frequency_penalty": -0.5,
				"stop": []any{"END", "\n\n"}, "seed": 7.0},
		},
		{
			name:    "reasoning model takes max_completion_tokens",
			model:   "o3-mini",
			req:     llm.Request{MaxTokens: 100, Temperature: ptr[float32](0.2), TopP: ptr[float32](0.5), PresencePenalty: ptr[float32](1), Seed: ptr(7)},
			want:    map[string]any{"max_completion_tokens": 100.0, "seed": 7.0},
			wantNot: []string{"max_tokens", "temperature", "top_p", "presence_penalty"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
				writeJSON(t, w, http.StatusOK, "chat_completion.json")
			})
			c := newClient(t, fs, func(cfg *llm.OpenAIConfig) { cfg.Model = tt.model })
			tt.req.Messages = []llm.Message{{Role: "user", Content: "hi"}}
			if _, err := c.Complete(context.Background(), tt.req); err != nil {
				t.Fatalf("Complete: %v", err)
			}
			raw := fs.seen()[0].Raw
			for k, v := range tt.want {
				if diff := cmp.Diff(v, raw[k]); diff != "" {
					t.Errorf("field %q (-want +got):\n%s", k, diff)
				}
			}
			for _, k := range tt.wantNot {
				if v, ok := raw[k]; ok {
					t.Errorf("field %q = %v, want it absent", k, v)
				}
			}
		})
	}
}

func TestOpenAIStream(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeStream(t, w, sseEvents(t, "chat_stream.sse"))
	})
	c := newClient(t, fs, nil)
	var deltas []string
	res, err := c.Stream(context.Background(),
		llm.Request{Messages: []llm.Message{{Role: "user", Content: "When was it sent?"}}},
		func(d string) error {
			deltas = append(deltas, d)
			return nil
		})
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	wantDeltas := []string{"The price ", "list was ", "sent on ", "Monday."}
	if diff := cmp.Diff(wantDeltas, deltas); diff != "" {
		t.Errorf("deltas (-want +got):\n%s", diff)
	}
	want := llm.Result{
		Text:             strings.Join(wantDeltas, ""),
		Provider:         "openai",
		Model:            "test-model-2024-01-01",
		PromptTokens:     42,
		CompletionTokens: 7,
		FinishReason:     "stop",
		Attempts:         1,
	}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("Result (-want +got):\n%s", diff)
	}
	seen := fs.seen()
	if len(seen) != 1 || !seen[0].Stream || seen[0].Path != "/v1/chat/completions" {
		t.Errorf("server saw %+v, want one streamed chat request", seen)
	}
}

func TestOpenAIStreamBroken(t *testing.T) {
	t.Parallel()
	events := sseEvents(t, "chat_stream.sse")
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeStream(t, w, events[:3]) // the role chunk and two deltas
		dropConnection(t, w)
	})
	c := newClient(t, fs, func(cfg *llm.OpenAIConfig) { cfg.MaxRetries = 3 })
	var deltas []string
	res, err := c.Stream(context.Background(),
		llm.Request{Messages: []llm.Message{{Role: "user", Content: "When was it sent?"}}},
		func(d string) error {
			deltas = append(deltas, d)
			return nil
		})
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("Stream error = %v, want *llm.Error", err)
	}
	if !strings.Contains(err.Error(), "stream broken") {
		t.Errorf("error %q does not say the stream broke", err)
	}
	if diff := cmp.Diff([]string{"The price ", "list was "}, deltas); diff != "" {
		t.Errorf("deltas (-want +got):\n%s", diff)
	}
	if res.Text != "The price list was " {
		t.Errorf("Result.Text = %q, want the emitted text", res.Text)
	}
	if n := len(fs.seen()); n != 1 {
		t.Errorf("server saw %d requests, want 1 (no retry after text was emitted)", n)
	}
}

func TestOpenAIStreamCallbackError(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeStream(t, w, sseEvents(t, "chat_stream.sse"))
	})
	c := newClient(t, fs, nil)
	errStop := errors.New("client went away")
	calls := 0
	_, err := c.Stream(context.Background(),
		llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}},
		func(string) error {
			calls++
			return errStop
		})
	if !errors.Is(err, errStop) {
		t.Fatalf("Stream error = %v, want the callback's error", err)
	}
	var e *llm.Error
	if errors.As(err, &e) {
		t.Errorf("callback error came back as *llm.Error %v; it is no model failure", e)
	}
	if calls != 1 {
		t.Errorf("callback called %d times, want 1", calls)
	}
	if n := len(fs.seen()); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

func TestOpenAIEmbed(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeJSON(t, w, http.StatusOK, "embeddings.json")
	})
	c := newClient(t, fs, func(cfg *llm.OpenAIConfig) { cfg.Model = "test-embed" })
	got, err := c.Embed(context.Background(), []string{"first text", "second text"})
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	want := [][]float32{{1, 0, -0.5}, {0, 1, 0.5}} // reordered by index
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("vectors (-want +got):\n%s", diff)
	}
	seen := fs.seen()
	if len(seen) != 1 {
		t.Fatalf("server saw %d requests, want 1", len(seen))
	}
	wantReq := wireRequest{Path: "/v1/embeddings", Model: "test-embed", Input: []string{"first text", "second text"}}
	if diff := cmp.Diff(wantReq, seen[0], cmp.FilterPath(func(p cmp.Path) bool {
		return p.Last().String() == ".Raw"
	}, cmp.Ignore())); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}

	none, err := c.Embed(context.Background(), nil)
	if err != nil || len(none) != 0 {
		t.Errorf("Embed(nil) = %v, %v; want no vectors, no error", none, err)
	}
	if n := len(fs.seen()); n != 1 {
		t.Errorf("Embed(nil) made a request; server saw %d", n)
	}
}

func TestOpenAIAccessors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  llm.OpenAIConfig
		want [3]string
	}{
		{"configured", llm.OpenAIConfig{BaseURL: "http://127.0.0.1:1234/v1/", Model: "m"}, [3]string{"openai", "m", "http://127.0.0.1:1234/v1"}},
		{"default server", llm.OpenAIConfig{Model: "gpt-4o-mini"}, [3]string{"openai", "gpt-4o-mini", "https://api.openai.com/v1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := llm.NewOpenAI(tt.cfg)
			got := [3]string{c.Provider(), c.Model(), c.Server()}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Provider, Model, Server (-want +got):\n%s", diff)
			}
		})
	}
}
