package bench

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
	"yakor/postgres/pgtest"
)

// TestBenchLoadSurvivesPostgresRestart runs the load bench small against
// the real binary, with its private PostgreSQL (in a temporary folder, not
// the shared test server) restarted midway, first with a fast shutdown,
// then with an immediate one (crash recovery): sends in flight fail with
// 503 and are retried with their client ids, and in the end every
// conversation is whole, through the API and in the database: no message
// lost, none stored twice, each answered once and in order, no turn left
// running.
func TestBenchLoadSurvivesPostgresRestart(t *testing.T) {
	dir := pgtest.DataDir(t)
	for _, mode := range []string{"fast", "immediate"} {
		t.Run(mode, func(t *testing.T) {
			var stderr bytes.Buffer
			opts := loadOptions{
				Conversations: 12, Turns: 8, Binary: yakorBin, BenchDir: dir,
				PGSettings: map[string]string{"fsync": "off"},
				Restart:    true, RestartAt: 0.4, RestartMode: mode, RetryFor: 90 * time.Second,
			}
			rep, err := benchLoad(t.Context(), opts, &stderr)
			if err != nil {
				var table bytes.Buffer
				_ = printLoadReport(&table, rep)
				t.Fatalf("%v\n%s\n%s", err, table.String(), stderr.String())
			}
			c := rep.Check
			if rep.Turns != 12*8 || c.Threads != 12 || c.Messages < 2*12*8 {
				t.Errorf("%d turns, %d threads, %d messages checked", rep.Turns, c.Threads, c.Messages)
			}
			if c.Lost != 0 || c.Duplicated != 0 || c.OutOfOrder != 0 || c.RunningTurns != 0 || c.ProblemCount != 0 {
				t.Errorf("check: %+v", c)
			}
			if rep.Restart == nil || rep.Restart.Mode != mode {
				t.Errorf("restart: %+v", rep.Restart)
			}
			// The fault happened: sends failed while PostgreSQL was away,
			// every one of them with 503 and the reason, none otherwise.
			if rep.Failures["503"] == 0 || rep.Retries == 0 {
				t.Errorf("no send failed with 503 during the restart: failures %v, %d retries", rep.Failures, rep.Retries)
			}
			for kind, n := range rep.Failures {
				if kind != "503" {
					t.Errorf("%d sends failed with %s: %s", n, kind, rep.FailureSamples[kind])
				}
			}
			if s := rep.FailureSamples["503"]; !strings.Contains(s, "database is unavailable") {
				t.Errorf("503 said %q", s)
			}
			if t.Failed() {
				var table bytes.Buffer
				_ = printLoadReport(&table, rep)
				t.Logf("%s\n%s", table.String(), stderr.String())
			}
		})
	}
}

// TestBenchLoadRestartNeedsOwnCluster: the bench restarts only a cluster
// it runs itself.
func TestBenchLoadRestartNeedsOwnCluster(t *testing.T) {
	err := runBenchLoad(t.Context(), []string{"--restart-postgres", "--database-url", "postgres://elsewhere/db"}, io.Discard, io.Discard, noEnv)
	if err == nil || !strings.Contains(err.Error(), "unset DATABASE_URL") {
		t.Fatalf("err = %v", err)
	}
}
