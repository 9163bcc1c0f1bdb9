package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"yakor/postgres/pgtest"
)

// dbCommand runs `yakor db ...` in this process and returns its stdout.
func dbCommand(t *testing.T, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	err := run(ctx, append([]string{"db"}, append(args, "--log-level", "warn")...), &stdout, &stderr, func(string) string { return "" })
	if stderr.Len() > 0 {
		t.Logf("yakor db %s: %s", strings.Join(args, " "), stderr.String())
	}
	return strings.TrimSpace(stdout.String()), err
}

// TestDBStartCitus: `db start --citus --fast` starts a coordinator and two
// workers with the migrations' extensions and 4 shards a table, prints the
// coordinator's URL, starts again to the same cluster, refuses the folder
// without --citus, and `db stop` stops every node.
func TestDBStartCitus(t *testing.T) {
	t.Parallel()
	dir := pgtest.DataDir(t)
	t.Cleanup(func() { _, _ = dbCommand(t, "stop", "--data-dir", dir) })
	url, err := dbCommand(t, "start", "--citus", "--fast", "--data-dir", dir)
	if err != nil {
		t.Fatalf("db start --citus (Citus must be installed: scripts/setup.sh citus): %v", err)
	}
	again, err := dbCommand(t, "start", "--citus", "--fast", "--data-dir", dir)
	if err != nil || again != url {
		t.Fatalf("db start --citus again: %q, %v; want %q", again, err, url)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect %q: %v", url, err)
	}
	var nodes int
	var shards string
	var exts []string
	const q = `SELECT (SELECT count(*) FROM pg_dist_node), current_setting('citus.shard_count'),
		(SELECT array_agg(extname::text ORDER BY extname) FROM pg_extension)`
	if err := conn.QueryRow(ctx, q).Scan(&nodes, &shards, &exts); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	if nodes != 3 || shards != "4" {
		t.Errorf("%d nodes, citus.shard_count %s; want 3 (coordinator, two workers) and 4", nodes, shards)
	}
	for _, e := range []string{"btree_gin", "citus", "pg_trgm", "vector"} {
		if !slices.Contains(exts, e) {
			t.Errorf("extensions %v lack %s", exts, e)
		}
	}
	if _, err := dbCommand(t, "start", "--fast", "--data-dir", dir); err == nil || !strings.Contains(err.Error(), "--citus") {
		t.Errorf("db start without --citus on a Citus folder: %v, want a refusal naming --citus", err)
	}
	if _, err := dbCommand(t, "stop", "--data-dir", dir); err != nil {
		t.Fatalf("db stop: %v", err)
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if c, err := pgx.Connect(cctx, url); err == nil {
		c.Close(ctx)
		t.Errorf("the coordinator still answers after db stop")
	}
}
