package llm_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"yakor/llm"
)

// call runs Complete or Stream with a one-message request.
func call(ctx context.Context, c *llm.OpenAI, stream bool) (llm.Result, error) {
	req := llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}}
	if stream {
		return c.Stream(ctx, req, func(string) error { return nil })
	}
	return c.Complete(ctx, req)
}

// succeed answers a chat request the way it asked to be answered.
func succeed(t *testing.T, w http.ResponseWriter, r *http.Request, stream bool) {
	t.Helper()
	if stream {
		writeStream(t, w, sseEvents(t, "chat_stream.sse"))
		return
	}
	writeJSON(t, w, http.StatusOK, "chat_completion.json")
}

func TestOpenAIRetries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		stream     bool
		status     int
		body       string
		retryAfter func() string // the header on the failed response; nil for none
		maxBackoff time.Duration
		minWait    time.Duration
		maxWait    time.Duration
	}{
		{
			name:       "429 honours Retry-After in seconds",
			status:     http.StatusTooManyRequests,
			body:       "error_429.json",
			retryAfter: func() string { return "1" },
			minWait:    950 * time.Millisecond,
			maxWait:    4 * time.Second,
		},
		{
			name:   "503 then success",
			status: http.StatusServiceUnavailable,
			body:   "error_500.json",
		},
		{
			name:   "streamed 503 then success",
			stream: true,
			status: http.StatusServiceUnavailable,
			body:   "error_500.json",
		},
		{
			name:       "streamed 429 honours Retry-After",
			stream:     true,
			status:     http.StatusTooManyRequests,
			body:       "error_429.json",
			retryAfter: func() string { return "1" },
			minWait:    950 * time.Millisecond,
			maxWait:    4 * time.Second,
		},
		{
			name:   "502 then success",
			status: http.StatusBadGateway,
			body:   "error_500.json",
		},
		{
			name:   "Retry-After as an HTTP date",
			status: http.StatusServiceUnavailable,
			body:   "error_500.json",
			retryAfter: func() string {
				return time.Now().Add(2 * time.Second).UTC().Format(http.TimeFormat)
			},
			minWait: 900 * time.Millisecond, // the date has whole seconds
			maxWait: 4 * time.Second,
		},
		{
			name:       "Retry-After capped at MaxBackoff",
			status:     http.StatusTooManyRequests,
			body:       "error_429.json",
			retryAfter: func() string { return "100" },
			maxBackoff: 50 * time.Millisecond,
			maxWait:    2 * time.Second,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if n == 1 {
					if tt.retryAfter != nil {
						w.Header().Set("Retry-After", tt.retryAfter())
					}
					writeJSON(t, w, tt.status, tt.body)
					return
				}
				succeed(t, w, r, tt.stream)
			})
			c := newClient(t, fs, func(cfg *llm.OpenAIConfig) {
				if tt.maxBackoff > 0 {
					cfg.MaxBackoff = tt.maxBackoff
				}
			})
			start := time.Now()
			res, err := call(context.Background(), c, tt.stream)
			elapsed := time.Since(start)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if res.Attempts != 2 {
				t.Errorf("Attempts = %d, want 2", res.Attempts)
			}
			if n := len(fs.seen()); n != 2 {
				t.Errorf("server saw %d requests, want 2", n)
			}
			if res.Text == "" {
				t.Errorf("empty reply after retry")
			}
			if elapsed < tt.minWait {
				t.Errorf("took %v, want at least %v (Retry-After ignored?)", elapsed, tt.minWait)
			}
			if tt.maxWait > 0 && elapsed > tt.maxWait {
				t.Errorf("took %v, want at most %v", elapsed, tt.maxWait)
			}
		})
	}
}

func TestOpenAINotRetried(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		stream bool
		status int
	}{
		{"400", false, http.StatusBadRequest},
		{"streamed 400", true, http.StatusBadRequest},
		{"401", false, http.StatusUnauthorized},
		{"403", false, http.StatusForbidden},
		{"404", false, http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
				writeJSON(t, w, tt.status, "error_400.json")
			})
			c := newClient(t, fs, nil)
			_, err := call(context.Background(), c, tt.stream)
			var e *llm.Error
			if !errors.As(err, &e) {
				t.Fatalf("error = %v, want *llm.Error", err)
			}
			if e.Status != tt.status || e.Timeout || e.Provider != "openai" {
				t.Errorf("Error = %+v, want status %d, no timeout, provider openai", e, tt.status)
			}
			want := fmt.Sprintf(`model "test-model" at %s: status %d: messages must not be empty`, fs.baseURL(), tt.status)
			if e.Error() != want {
				t.Errorf("Error() = %q, want %q", e.Error(), want)
			}
			if n := len(fs.seen()); n != 1 {
				t.Errorf("server saw %d requests, want 1", n)
			}
		})
	}
}

func TestOpenAIRetriesExhausted(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeJSON(t, w, http.StatusInternalServerError, "error_500.json")
	})
	c := newClient(t, fs, func(cfg *llm.OpenAIConfig) { cfg.MaxRetries = 2 })
	_, err := call(context.Background(), c, false)
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v, want *llm.Error", err)
	}
	want := fmt.Sprintf(`model "test-model" at %s: status 500: upstream exploded`, fs.baseURL())
	if e.Error() != want {
		t.Errorf("Error() = %q, want %q", e.Error(), want)
	}
	if n := len(fs.seen()); n != 3 {
		t.Errorf("server saw %d requests, want 3 (1 + MaxRetries)", n)
	}
}

func TestOpenAITimeout(t *testing.T) {
	t.Parallel()
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			t.Parallel()
			fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
				select {
				case <-r.Context().Done():
				case <-time.After(3 * time.Second):
				}
			})
			c := newClient(t, fs, func(cfg *llm.OpenAIConfig) {
				cfg.Timeout = 200 * time.Millisecond
				cfg.MaxRetries = 1
			})
			start := time.Now()
			_, err := call(context.Background(), c, stream)
			var e *llm.Error
			if !errors.As(err, &e) {
				t.Fatalf("error = %v, want *llm.Error", err)
			}
			if !e.Timeout {
				t.Errorf("Timeout = false in %v", e)
			}
			if !strings.Contains(err.Error(), "timed out after 200ms") {
				t.Errorf("error %q does not say how long it waited", err)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("errors.Is(%v, context.DeadlineExceeded) = false", err)
			}
			if n := len(fs.seen()); n != 1 {
				t.Errorf("server saw %d requests, want 1 (the timeout bounds the call's attempts together)", n)
			}
			if elapsed := time.Since(start); elapsed > 600*time.Millisecond {
				t.Errorf("took %v, want about 200ms", elapsed)
			}
		})
	}
}

func TestOpenAIConnectionDropRetried(t *testing.T) {
	t.Parallel()
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			t.Parallel()
			fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if n == 1 {
					dropConnection(t, w)
					return
				}
				succeed(t, w, r, stream)
			})
			c := newClient(t, fs, nil)
			res, err := call(context.Background(), c, stream)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if res.Attempts != 2 {
				t.Errorf("Attempts = %d, want 2", res.Attempts)
			}
		})
	}
}

func TestOpenAICallerCancel(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Retry-After", "1")
		writeJSON(t, w, http.StatusServiceUnavailable, "error_500.json")
	})
	c := newClient(t, fs, nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := call(ctx, c, false)
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v, want *llm.Error", err)
	}
	if !errors.Is(err, context.Canceled) || e.Timeout {
		t.Errorf("error = %v (Timeout %v), want context.Canceled, no timeout", err, e.Timeout)
	}
	if elapsed := time.Since(start); elapsed > 800*time.Millisecond {
		t.Errorf("took %v; the backoff sleep ignored the cancelled context", elapsed)
	}
	if n := len(fs.seen()); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}
