// Package apptest boots the whole of Yakor for end-to-end tests: the graph
// of app.New, as yakor serve builds it, on a fresh database of pgtest,
// serving real HTTP on 127.0.0.1 at a port the kernel picks (no port is
// guessed beforehand, so parallel tests never race for one).
package apptest

import (
	"context"
	"fmt"
	"log/slog"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"yakor/app"
	"yakor/postgres/pgtest"
)

// Server is a running app and its address.
type Server struct {
	*app.App
	// URL is the server's root, http://127.0.0.1:port.
	URL string
}

// Config is the settings tests start from: DefaultConfig listening on a
// free loopback port, two workers per queue, no research schedule, no
// compaction (tests that want it say so), and a research fetcher that may
// reach the tests' loopback servers.
func Config() app.Config {
	c := app.DefaultConfig()
	c.Addr = "127.0.0.1:0"
	c.Workers = 2
	c.ResearchSchedule = "off"
	c.ResearchAllowPrivate = true
	c.ResearchFetchTimeout = 5 * time.Second
	c.Compaction = false
	return c
}

// New builds and starts the app of cfg on a fresh database (unless an
// option gives one) and stops it when the test ends.
func New(tb testing.TB, cfg app.Config, opts ...app.Option) *Server {
	tb.Helper()
	pool, svc := pgtest.NewService(tb)
	opts = append([]app.Option{app.WithDatabase(&app.Database{Owner: pool, Tenant: svc})}, opts...)
	return Start(tb, cfg, opts...)
}

// Start builds and starts the app of cfg with opts (which must give it a
// database: WithDatabase) and stops it when the test ends.
func Start(tb testing.TB, cfg app.Config, opts ...app.Option) *Server {
	tb.Helper()
	return StartLogged(tb, cfg, pgtest.Logger(tb), opts...)
}

// StartLogged is Start with the app logging to log: a test that must see
// no warning (a degraded layer logs one and goes on) gives its own.
func StartLogged(tb testing.TB, cfg app.Config, log *slog.Logger, opts ...app.Option) *Server {
	tb.Helper()
	ctx := context.Background()
	a, err := app.New(ctx, cfg, log, opts...)
	if err != nil {
		tb.Fatalf("apptest: new: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		a.Close(ctx)
	})
	if err := a.Start(ctx); err != nil {
		tb.Fatalf("apptest: start: %v", err)
	}
	return &Server{App: a, URL: "http://" + a.Addr()}
}

// BuildBinary builds the yakor command into dir and returns its path, for
// tests that run it as a subprocess (as users do); the build records the
// commit, as make's does.
func BuildBinary(dir string) (string, error) {
	bin := filepath.Join(dir, "yakor")
	out, err := exec.Command("go", "build", "-buildvcs=auto", "-o", bin, "yakor/cmd/yakor").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("build yakor: %v\n%s", err, out)
	}
	return bin, nil
}
