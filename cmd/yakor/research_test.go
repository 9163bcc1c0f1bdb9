package main

import (
	"context"
	"net/http"
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
	a := startServer(t, dataDir(t), freeAddr(t), flags...)
	startServer(t, dataDir(t), freeAddr(t), flags...)

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
