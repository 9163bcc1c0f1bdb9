package distributed_test

import (
	"context"
	"log/slog"
	"os"
	"sync"
	"testing"
)

// warnings is a log handler that writes to standard error and keeps every
// warning and error: a layer that fails on Citus (a statement that does
// not route, say) degrades with a warning rather than failing the turn.
type warnings struct {
	mu   sync.Mutex
	seen []string
	next slog.Handler
}

func newWarnings() *warnings {
	return &warnings{next: slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})}
}

func (w *warnings) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (w *warnings) Handle(ctx context.Context, r slog.Record) error {
	w.mu.Lock()
	msg := r.Message
	r.Attrs(func(a slog.Attr) bool { msg += " " + a.String(); return true })
	w.seen = append(w.seen, msg)
	w.mu.Unlock()
	return w.next.Handle(ctx, r)
}

func (w *warnings) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w *warnings) WithGroup(string) slog.Handler      { return w }

// none fails the test for every warning logged.
func (w *warnings) none(t *testing.T) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, m := range w.seen {
		t.Errorf("logged: %s", m)
	}
}
