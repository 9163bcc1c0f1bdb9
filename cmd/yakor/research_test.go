package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"yakor/postgres/pgtest"
)

// TestResearchOncePerSlot: two instances on one database, with the research
// job every 2 seconds, run it once per slot between them.
func TestResearchOncePerSlot(t *testing.T) {
	url, _ := pgtest.NewURL(t)
	flags := []string{"--database-url", url, "--research-schedule", "@every 2s", "--log-level", "warn"}
	a := startServer(t, pgtest.DataDir(t), flags...)
	startServer(t, pgtest.DataDir(t), flags...)

	var status struct {
		NextRunAt *time.Time `json:"next_run_at"`
		Message   string
	}
	if code := a.call(t, "GET", "/api/v1/research/status", "", &status); code != http.StatusOK || status.NextRunAt == nil ||
		time.Until(*status.NextRunAt) > 3*time.Second || status.Message == "" {
		t.Fatalf("status: %d %+v", code, status)
	}

	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	start := time.Now()
	time.Sleep(14 * time.Second)
	elapsed := time.Since(start)
	rows, err := conn.Query(ctx, `SELECT slot, message FROM research_runs WHERE trigger = 'schedule' ORDER BY slot`)
	if err != nil {
		t.Fatal(err)
	}
	type run struct {
		Slot    time.Time
		Message string
	}
	runs, err := pgx.CollectRows(rows, pgx.RowToStructByPos[run])
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d scheduled runs in %v", len(runs), elapsed.Round(time.Second))
	slots := int(elapsed/(2*time.Second)) + 2
	if len(runs) < 2 || len(runs) > slots {
		t.Fatalf("%d scheduled runs in %v with two instances, want at least 2 and at most %d (one per 2 s slot): %+v", len(runs), elapsed.Round(time.Second), slots, runs)
	}
	for i := 1; i < len(runs); i++ {
		if gap := runs[i].Slot.Sub(runs[i-1].Slot); gap < 1500*time.Millisecond {
			t.Fatalf("runs %v apart: a slot ran twice: %+v", gap, runs)
		}
	}
	if runs[0].Message == "" {
		t.Fatalf("a run without a source said nothing: %+v", runs[0])
	}
}

// TestResearchSurvivesSIGKILL: `yakor likbez run` killed outright in the
// middle of a topic leaves it to the next run, which completes it without
// storing a page twice.
func TestResearchSurvivesSIGKILL(t *testing.T) {
	url, _ := pgtest.NewURL(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// The schema comes with the first run; the topic is added after it.
	var hits atomic.Int32
	hang := make(chan struct{})
	pages := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/slow" {
			select {
			case <-hang:
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><head><title>VAT %s</title></head><body><article><p>%s</p></article></body></html>", r.URL.Path,
			strings.Repeat("Exports of goods outside the VAT area are zero-rated, so VAT does not apply to them. ", 5))
	}))
	defer pages.Close()
	searx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"results": [{"url": %q}, {"url": %q}, {"url": %q}]}`, pages.URL+"/a", pages.URL+"/slow", pages.URL+"/b")
	}))
	defer searx.Close()
	likbez := func() *exec.Cmd {
		cmd := exec.Command(yakorBin, "likbez", "run", "--database-url", url, "--searxng-url", searx.URL, "--research-allow-private", "true", "--log-level", "warn")
		cmd.Env = append(os.Environ(), "OPENAI_BASE_URL=", "YAKOR_CHAT_MODEL=")
		return cmd
	}
	if out, err := likbez().CombinedOutput(); err != nil {
		t.Fatalf("first run: %v\n%s", err, out)
	}
	const topic = `
WITH t AS (INSERT INTO tenants (id, name) VALUES (gen_random_uuid(), 't') RETURNING id)
INSERT INTO research_topics (tenant_id, topic, source) SELECT id, 'when VAT does not apply', 'manual' FROM t`
	if _, err := conn.Exec(ctx, topic); err != nil {
		t.Fatal(err)
	}

	cmd := likbez()
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); hits.Load() < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the run never reached the slow page:\n%s", log.String())
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	count := func(q string) int {
		var n int
		if err := conn.QueryRow(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(`SELECT count(*) FROM research_articles`); n != 1 {
		t.Fatalf("%d articles stored before the kill, want 1", n)
	}
	if n := count(`SELECT count(*) FROM research_topics WHERE status = 'running'`); n != 1 {
		t.Fatal("the killed run's topic is not left running")
	}

	close(hang)
	if out, err := likbez().CombinedOutput(); err != nil || !strings.Contains(string(out), `"topics_done": 1`) {
		t.Fatalf("run after the kill: %v\n%s", err, out)
	}
	if n := count(`SELECT count(*) FROM research_articles`); n != 3 {
		t.Fatalf("%d articles, want 3, none twice", n)
	}
	if n := count(`SELECT count(*) FROM experiences WHERE level = 2`); n != 3 {
		t.Fatalf("%d notes indexed, want 3", n)
	}
	if n := count(`SELECT count(*) FROM research_topics WHERE status = 'done'`); n != 1 {
		t.Fatal("the topic is not done")
	}
}
