package cluster_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"yakor/postgres/cluster"
	"yakor/postgres/pgtest"
)

// stopDirCleanup stops whatever server runs in dir when the test ends.
func stopDirCleanup(tb testing.TB, dir string) {
	tb.Helper()
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := cluster.StopDir(ctx, dir); err != nil {
			tb.Errorf("StopDir: %v", err)
		}
	})
}

// processGone reports whether pid has exited (zombies count as gone).
func processGone(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true
	}
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == ')' && i+2 < len(b) {
			return b[i+2] == 'Z'
		}
	}
	return false
}

func TestStart_StalePID(t *testing.T) {
	t.Parallel()
	dir := pgtest.DataDir(t)
	stopDirCleanup(t, dir)
	opts := testOptions(t, dir)
	opts.Detach = true
	c := mustStart(t, opts)
	mustExec(t, mustConn(t, c), "CREATE TABLE kept (v int)", "INSERT INTO kept VALUES (42)")

	if err := syscall.Kill(c.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, c.Done(), 10*time.Second, "killed postmaster")
	if _, err := os.Stat(filepath.Join(dir, "pg", "postmaster.pid")); err != nil {
		t.Fatalf("postmaster.pid should be left behind: %v", err)
	}

	c2 := mustStart(t, testOptions(t, dir))
	if got := queryString(t, mustConn(t, c2), "SELECT v::text FROM kept"); got != "42" {
		t.Errorf("kept = %q, want 42", got)
	}
}

func TestStart_Orphan(t *testing.T) {
	t.Parallel()
	dir := pgtest.DataDir(t)
	stopDirCleanup(t, dir)
	opts := testOptions(t, dir)
	opts.Detach = true
	c1 := mustStart(t, opts)
	mustExec(t, mustConn(t, c1), "CREATE TABLE kept (v int)", "INSERT INTO kept VALUES (7)")

	c2 := mustStart(t, opts) // a second Yakor on the same folder
	waitClosed(t, c1.Done(), 5*time.Second, "first postmaster")
	if c2.PID() == c1.PID() {
		t.Fatalf("second Start reused pid %d", c1.PID())
	}
	if got := queryString(t, mustConn(t, c2), "SELECT v::text FROM kept"); got != "7" {
		t.Errorf("kept = %q, want 7", got)
	}
}

// TestStart_OrphanOfExitedProcess leaves a detached server behind a helper
// process that exits, as a killed "yakor serve" would, and starts again.
func TestStart_OrphanOfExitedProcess(t *testing.T) {
	t.Parallel()
	dir := pgtest.DataDir(t)
	stopDirCleanup(t, dir)
	orphan := runHelper(t, dir, true)
	if processGone(orphan) {
		t.Fatalf("detached postmaster %d did not outlive its parent", orphan)
	}

	c := mustStart(t, testOptions(t, dir))
	waitGone(t, orphan, 5*time.Second)
	if c.PID() == orphan {
		t.Fatalf("Start reused the orphan %d", orphan)
	}
	mustExec(t, mustConn(t, c), "SELECT 1")
}

// TestStart_ParentDies checks that a foreground server shuts down when the
// process that started it exits without stopping it.
func TestStart_ParentDies(t *testing.T) {
	t.Parallel()
	dir := pgtest.DataDir(t)
	stopDirCleanup(t, dir)
	pid := runHelper(t, dir, false)
	waitGone(t, pid, 15*time.Second)
}

// helperEnv names the data folder for TestHelperProcess.
const helperEnv = "YAKOR_CLUSTER_TEST_HELPER_DIR"

// runHelper starts a cluster in dir from a separate process that exits
// without stopping it, and returns the postmaster's pid.
func runHelper(tb testing.TB, dir string, detach bool) int {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+dir, helperEnv+"_DETACH="+strconv.FormatBool(detach))
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("helper: %v\n%s", err, out)
	}
	_, after, ok := strings.Cut(string(out), "postmaster pid=")
	if !ok {
		tb.Fatalf("helper printed no pid:\n%s", out)
	}
	pid, err := strconv.Atoi(strings.Fields(after)[0])
	if err != nil {
		tb.Fatalf("helper pid: %v", err)
	}
	return pid
}

// TestHelperProcess is the body of runHelper's process; in a normal run it
// has nothing to do and passes.
func TestHelperProcess(t *testing.T) {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		return // not started as a helper process
	}
	opts := testOptions(t, dir)
	opts.Detach = os.Getenv(helperEnv+"_DETACH") == "true"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := cluster.Start(ctx, opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Printf("postmaster pid=%d\n", c.PID())
	os.Exit(0)
}

// waitGone fails unless pid exits within d.
func waitGone(tb testing.TB, pid int, d time.Duration) {
	tb.Helper()
	for deadline := time.Now().Add(d); !processGone(pid); {
		if time.Now().After(deadline) {
			tb.Fatalf("process %d still running after %s", pid, d)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestStopDir(t *testing.T) {
	t.Parallel()
	dir := pgtest.DataDir(t)
	ctx := context.Background()
	if err := cluster.StopDir(ctx, dir); err != nil {
		t.Fatalf("StopDir without a cluster: %v", err)
	}
	opts := testOptions(t, dir)
	opts.Detach = true
	c := mustStart(t, opts)
	pid := c.PID()

	if err := cluster.StopDir(ctx, dir); err != nil {
		t.Fatalf("StopDir: %v", err)
	}
	waitClosed(t, c.Done(), 5*time.Second, "postmaster")
	if !processGone(pid) {
		t.Errorf("postmaster %d still running", pid)
	}
	if _, err := os.Stat(filepath.Join(dir, "pg", "postmaster.pid")); !os.IsNotExist(err) {
		t.Errorf("postmaster.pid after clean shutdown: %v", err)
	}
	if err := cluster.StopDir(ctx, dir); err != nil {
		t.Errorf("second StopDir: %v", err)
	}
}
