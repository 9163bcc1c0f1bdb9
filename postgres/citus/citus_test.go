package citus_test

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"yakor/postgres/citus"
	"yakor/postgres/pgtest"
)

// testOptions are a small, fast cluster of two workers in a fresh folder.
func testOptions(tb testing.TB) citus.Options {
	tb.Helper()
	return citus.Options{
		Dir:        pgtest.DataDir(tb),
		Workers:    2,
		ShardCount: 4,
		Extensions: []string{"pg_trgm"},
		Settings:   map[string]string{"fsync": "off", "shared_buffers": "16MB", "max_connections": "50"},
		Logger:     slog.New(slog.NewTextHandler(tb.Output(), nil)),
	}
}

// mustStart starts a cluster (failing the test, with how to install Citus
// when it is missing) and stops every node of its folder when the test ends.
func mustStart(tb testing.TB, opts citus.Options) *citus.Cluster {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	began := time.Now()
	c, err := citus.Start(ctx, opts)
	if err != nil {
		tb.Fatalf("Start (Citus must be installed: scripts/setup.sh citus): %v", err)
	}
	tb.Logf("coordinator and %d workers started in %s", opts.Workers, time.Since(began).Round(time.Millisecond))
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.Stop(ctx); err != nil {
			tb.Errorf("Stop: %v", err)
		}
		if err := citus.StopDir(ctx, opts.Dir); err != nil {
			tb.Errorf("StopDir: %v", err)
		}
	})
	return c
}

// connect opens a connection to url, closed when the test ends.
func connect(tb testing.TB, url string) *pgx.Conn {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		tb.Fatalf("connect %q: %v", url, err)
	}
	tb.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func exec(tb testing.TB, conn *pgx.Conn, sql string, args ...any) {
	tb.Helper()
	if _, err := conn.Exec(context.Background(), sql, args...); err != nil {
		tb.Fatalf("%s: %v", sql, err)
	}
}

func queryInt(tb testing.TB, conn *pgx.Conn, sql string, args ...any) int {
	tb.Helper()
	var n int
	if err := conn.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		tb.Fatalf("%s: %v", sql, err)
	}
	return n
}

// workerNames lists the active workers' node names.
func workerNames(tb testing.TB, conn *pgx.Conn) []string {
	tb.Helper()
	rows, err := conn.Query(context.Background(), `SELECT node_name FROM citus_get_active_worker_nodes() ORDER BY 1`)
	if err != nil {
		tb.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		tb.Fatal(err)
	}
	return names
}

// distribute makes a table distributed by tenant_id, with a row for each
// of 8 tenants.
func distribute(tb testing.TB, conn *pgx.Conn) {
	tb.Helper()
	exec(tb, conn, `CREATE TABLE notes (tenant_id bigint NOT NULL, id bigint NOT NULL, body text NOT NULL, PRIMARY KEY (tenant_id, id))`)
	exec(tb, conn, `SELECT create_distributed_table('notes', 'tenant_id')`)
	exec(tb, conn, `CREATE INDEX notes_trgm ON notes USING gin (body gin_trgm_ops)`)
	exec(tb, conn, `INSERT INTO notes SELECT t, 1, 'note of tenant ' || t FROM generate_series(1, 8) t`)
}

// TestStart starts a coordinator and two workers: both workers are
// registered by their socket folders, a table distributed by tenant_id has
// shards (and rows) on both, and the extensions exist on every node.
func TestStart(t *testing.T) {
	t.Parallel()
	opts := testOptions(t)
	c := mustStart(t, opts)
	coord := connect(t, c.URL())

	var want []string
	for i := 1; i <= opts.Workers; i++ {
		host, _ := c.WorkerHost(i)
		want = append(want, host)
	}
	if got := workerNames(t, coord); !slices.Equal(got, want) {
		t.Fatalf("active workers %q, want the workers' socket folders %q", got, want)
	}
	distribute(t, coord)
	if n := queryInt(t, coord, `SELECT count(DISTINCT nodename) FROM citus_shards WHERE table_name = 'notes'::regclass`); n != 2 {
		t.Errorf("shards of notes on %d nodes, want 2", n)
	}
	if n := queryInt(t, coord, `SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = 'notes'::regclass`); n != opts.ShardCount {
		t.Errorf("%d shards, want ShardCount %d", n, opts.ShardCount)
	}
	if n := queryInt(t, coord, `SELECT count(*) FROM notes WHERE body LIKE '%tenant%'`); n != 8 {
		t.Errorf("coordinator sees %d rows, want 8", n)
	}
	total := 0
	for i := 1; i <= opts.Workers; i++ {
		w := connect(t, c.WorkerURL(i))
		for _, ext := range []string{"citus", "pg_trgm"} {
			if queryInt(t, w, `SELECT count(*) FROM pg_extension WHERE extname = $1`, ext) != 1 {
				t.Errorf("worker %d has no extension %s", i, ext)
			}
		}
		// The shards are tables notes_<shardid> on the worker, which Citus
		// hides from pg_class unless asked not to; sum their rows.
		exec(t, w, `SET citus.override_table_visibility = off`)
		n := queryInt(t, w, `SELECT coalesce(sum((xpath('/row/n/text()', query_to_xml(format('SELECT count(*) AS n FROM %I', relname), false, true, '')))[1]::text::int), 0)
			FROM pg_class WHERE relkind = 'r' AND relname ~ '^notes_[0-9]+$'`)
		if n == 0 {
			t.Errorf("worker %d holds no rows of notes", i)
		}
		total += n
	}
	if total != 8 {
		t.Errorf("workers hold %d rows, want 8", total)
	}
}

// TestStart_Twice starts the same folder again: the workers are not
// registered twice and the data is still there.
func TestStart_Twice(t *testing.T) {
	t.Parallel()
	opts := testOptions(t)
	c := mustStart(t, opts)
	distribute(t, connect(t, c.URL()))

	again := mustStart(t, opts)
	if again.URL() != c.URL() {
		t.Errorf("second start's URL %q, want %q", again.URL(), c.URL())
	}
	coord := connect(t, again.URL())
	if got := workerNames(t, coord); len(got) != 2 {
		t.Errorf("after a second start, active workers %q, want 2", got)
	}
	if n := queryInt(t, coord, `SELECT count(*) FROM pg_dist_node`); n != 3 {
		t.Errorf("pg_dist_node has %d rows, want 3 (coordinator and two workers)", n)
	}
	if n := queryInt(t, coord, `SELECT count(*) FROM notes`); n != 8 {
		t.Errorf("after a second start, %d rows, want 8", n)
	}
}
