package bench

import (
	"bytes"
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"yakor/postgres/pgtest"
)

// TestBenchSearch runs yakor bench search on a small corpus twice: the
// first run loads it into a database of its own (indexes built after the
// load), the second reuses it; both print the table.
func TestBenchSearch(t *testing.T) {
	t.Parallel()
	url, name := pgtest.NewURL(t)
	t.Cleanup(func() { dropSiblings(t, url, name) })
	for i, want := range []string{"loaded in", "loaded by an earlier run"} {
		var stdout, stderr bytes.Buffer
		args := []string{"--messages", "3000", "--big", "1200", "--queries", "20", "--database-url", url}
		if err := runBenchSearch(context.Background(), args, &stdout, &stderr, noEnv); err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, stderr.String())
		}
		wantAll(t, stdout.String(), "3000 messages in the database (3 threads; one of 1200)", want, "| big | 1200 |", "| small (random) | 900 |")
	}
}

// dropSiblings drops the databases the benchmarks made beside the test's
// database name.
func dropSiblings(t *testing.T, url, name string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Error(err)
		return
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, name+"_")
	if err != nil {
		t.Error(err)
		return
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Error(err)
		return
	}
	for _, n := range names {
		if _, err := conn.Exec(ctx, `DROP DATABASE IF EXISTS `+pgx.Identifier{n}.Sanitize()+` WITH (FORCE)`); err != nil {
			t.Error(err)
		}
	}
}
