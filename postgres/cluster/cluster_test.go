package cluster_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"yakor/postgres/cluster"
	"yakor/postgres/pgtest"
)

// testOptions returns fast options for a cluster in dir.
func testOptions(tb testing.TB, dir string) cluster.Options {
	tb.Helper()
	return cluster.Options{
		Dir:      dir,
		Settings: map[string]string{"fsync": "off", "shared_buffers": "16MB"},
		Logger:   slog.New(slog.NewTextHandler(tb.Output(), nil)),
	}
}

// mustStart starts a cluster and stops it when the test ends.
func mustStart(tb testing.TB, opts cluster.Options) *cluster.Cluster {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := cluster.Start(ctx, opts)
	if err != nil {
		tb.Fatalf("Start: %v", err)
	}
	tb.Cleanup(func() { mustStop(tb, c) })
	return c
}

// mustStop stops c.
func mustStop(tb testing.TB, c *cluster.Cluster) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Stop(ctx); err != nil {
		tb.Fatalf("Stop: %v", err)
	}
}

// mustConn connects to the cluster's application database.
func mustConn(tb testing.TB, c *cluster.Cluster) *pgx.Conn {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.URL())
	if err != nil {
		tb.Fatalf("connect %q: %v", c.URL(), err)
	}
	tb.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// mustExec runs statements on conn.
func mustExec(tb testing.TB, conn *pgx.Conn, sqls ...string) {
	tb.Helper()
	for _, q := range sqls {
		if _, err := conn.Exec(context.Background(), q); err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
	}
}

// queryString runs a query returning one text value.
func queryString(tb testing.TB, conn *pgx.Conn, q string) string {
	tb.Helper()
	var s string
	if err := conn.QueryRow(context.Background(), q).Scan(&s); err != nil {
		tb.Fatalf("%s: %v", q, err)
	}
	return s
}

// waitClosed fails unless ch is closed within d.
func waitClosed(tb testing.TB, ch <-chan struct{}, d time.Duration, what string) {
	tb.Helper()
	select {
	case <-ch:
	case <-time.After(d):
		tb.Fatalf("%s: still running after %s", what, d)
	}
}

func TestStart(t *testing.T) {
	t.Parallel()
	dir := pgtest.DataDir(t)
	c := mustStart(t, testOptions(t, dir))

	t.Run("URL", func(t *testing.T) {
		want := "host=" + filepath.Join(dir, "run") + " port=5432 user=postgres dbname=yakor"
		if !strings.HasPrefix(c.URL(), want) {
			t.Errorf("URL() = %q, want prefix %q", c.URL(), want)
		}
	})
	conn := mustConn(t, c)
	t.Run("Query", func(t *testing.T) {
		mustExec(t, conn,
			"SELECT 1",
			"CREATE EXTENSION IF NOT EXISTS vector",
			"CREATE EXTENSION IF NOT EXISTS pg_trgm",
		)
		if got := queryString(t, conn, "SELECT current_database()"); got != "yakor" {
			t.Errorf("current_database() = %q, want yakor", got)
		}
		if got := queryString(t, conn, "SELECT lower('ЛДСП')"); got != "лдсп" {
			t.Errorf("lower('ЛДСП') = %q, want лдсп", got)
		}
		if got := queryString(t, conn, "SHOW server_encoding"); got != "UTF8" {
			t.Errorf("server_encoding = %q, want UTF8", got)
		}
	})
	t.Run("NoTCP", func(t *testing.T) {
		if got := queryString(t, conn, "SHOW listen_addresses"); got != "" {
			t.Errorf("listen_addresses = %q, want empty", got)
		}
		if got := queryString(t, conn, "SELECT count(*)::text FROM pg_hba_file_rules WHERE type <> 'local'"); got != "0" {
			t.Errorf("non-local pg_hba rules = %s, want 0", got)
		}
	})
	t.Run("Layout", func(t *testing.T) {
		fi, err := os.Stat(filepath.Join(dir, "pg"))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != 0o700 {
			t.Errorf("pg mode = %04o, want 0700", got)
		}
		for _, p := range []string{"pg/PG_VERSION", "run/.s.PGSQL.5432", "postgres.log"} {
			if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
				t.Errorf("%s: %v", p, err)
			}
		}
	})
}

func TestStart_Restart(t *testing.T) {
	t.Parallel()
	opts := testOptions(t, pgtest.DataDir(t))
	opts.Database = "data base" // quoting in DSN and CREATE DATABASE
	c := mustStart(t, opts)
	conn := mustConn(t, c)
	mustExec(t, conn, "CREATE TABLE kept (v text)", "INSERT INTO kept VALUES ('survives')")
	conn.Close(context.Background())
	mustStop(t, c)
	mustStop(t, c) // idempotent
	waitClosed(t, c.Done(), time.Second, "first server")

	c2 := mustStart(t, opts)
	if got := queryString(t, mustConn(t, c2), "SELECT v FROM kept"); got != "survives" {
		t.Errorf("kept = %q, want survives", got)
	}
}

func TestStart_ServerFails(t *testing.T) {
	t.Parallel()
	opts := testOptions(t, pgtest.DataDir(t))
	opts.Settings["shared_buffers"] = "not-a-size"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := cluster.Start(ctx, opts)
	if err == nil {
		mustStop(t, c)
		t.Fatal("Start succeeded with an invalid setting")
	}
	if !strings.Contains(err.Error(), "shared_buffers") || !strings.Contains(err.Error(), "postgres.log") {
		t.Errorf("error lacks the log tail: %v", err)
	}
}
