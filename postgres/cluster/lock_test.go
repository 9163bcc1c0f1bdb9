package cluster_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"yakor/postgres/cluster"
	"yakor/postgres/pgtest"
)

// TestOwnedFolder: a folder whose server another live process owns (named
// in owner.pid, as yakor serve is) is never stopped by another start: Start
// refuses it with ErrInUse, Start with Attach uses the running server and
// leaves it running when stopped, and StopDir refuses it.
func TestOwnedFolder(t *testing.T) {
	dir := pgtest.DataDir(t)
	opts := testOptions(t, dir)
	c := mustStart(t, opts)
	cluster.Disown(c)
	// Another process, alive, takes the folder over.
	holder := exec.Command("sleep", "300")
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = holder.Process.Kill(); _ = holder.Wait() })
	if err := os.WriteFile(filepath.Join(dir, "owner.pid"), []byte(cluster.OwnerLine(holder.Process.Pid)), 0o644); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := cluster.Start(ctx, opts); !errors.Is(err, cluster.ErrInUse) {
		t.Fatalf("Start on an owned folder: %v, want ErrInUse", err)
	}
	mustAnswer(t, c.URL())

	attached := opts
	attached.Attach = true
	a, err := cluster.Start(ctx, attached)
	if err != nil {
		t.Fatalf("Start with Attach: %v", err)
	}
	if !a.Attached() || a.PID() != c.PID() || a.URL() != c.URL() {
		t.Fatalf("attached to pid %d (%s), want the running %d (%s)", a.PID(), a.URL(), c.PID(), c.URL())
	}
	mustAnswer(t, a.URL())
	if err := a.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	mustAnswer(t, c.URL())

	if err := cluster.StopDir(ctx, dir); !errors.Is(err, cluster.ErrInUse) {
		t.Fatalf("StopDir on an owned folder: %v, want ErrInUse", err)
	}
	mustAnswer(t, c.URL())

	// Its owner gone (killed), the folder is free: the next start stops
	// the orphaned server and runs its own.
	_ = holder.Process.Kill()
	_ = holder.Wait()
	c2 := mustStart(t, opts)
	if c2.PID() == c.PID() {
		t.Fatalf("the orphaned server %d was kept", c.PID())
	}
	mustAnswer(t, c2.URL())
}

// mustAnswer fails unless the server at url answers a query.
func mustAnswer(tb testing.TB, url string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		tb.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
		tb.Fatalf("query: %v", err)
	}
}
