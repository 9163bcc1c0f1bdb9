package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Shutdown timings: how long a fast shutdown may take when the caller's
// context has no deadline, and how long each escalation step waits.
const (
	defaultFastShutdown = time.Minute
	escalationWait      = 5 * time.Second
	lingerWait          = 5 * time.Second
	pollInterval        = 50 * time.Millisecond
)

// pidFile is what postmaster.pid says about a server: its first lines are the
// PID, the data directory, the start time, the port and the socket directory.
type pidFile struct {
	pid  int
	port int
}

// readPIDFile parses path. ok is false if the file does not exist.
func readPIDFile(path string) (pf pidFile, ok bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return pidFile{}, false, nil
	}
	if err != nil {
		return pidFile{}, false, fmt.Errorf("read %s: %w", path, err)
	}
	lines := strings.Split(string(b), "\n")
	pf.pid, _ = strconv.Atoi(strings.TrimSpace(lines[0]))
	if len(lines) > 3 {
		pf.port, _ = strconv.Atoi(strings.TrimSpace(lines[3]))
	}
	return pf, true, nil
}

// alive reports whether pid names a process that has not exited; zombies
// count as exited.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false
		}
		err := syscall.Kill(pid, 0)
		return err == nil || errors.Is(err, syscall.EPERM)
	}
	// "pid (comm) S ...": the state follows the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return true
	}
	state := b[i+2]
	return state != 'Z' && state != 'X'
}

// isPostgres reports whether pid runs the postgres binary.
func isPostgres(pid int) bool {
	proc := "/proc/" + strconv.Itoa(pid)
	if exe, err := os.Readlink(proc + "/exe"); err == nil {
		base := filepath.Base(strings.TrimSuffix(exe, " (deleted)"))
		return base == "postgres" || base == "postmaster"
	}
	args := cmdline(pid)
	if len(args) == 0 {
		return false
	}
	base := filepath.Base(args[0])
	return base == "postgres" || base == "postmaster" || strings.HasPrefix(args[0], "postgres:")
}

func cmdline(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

// isPostmasterOf reports whether pid is a live postgres process serving
// pgdata. The postmaster's working directory is its data directory; when
// that cannot be read, its -D argument is used.
func isPostmasterOf(pid int, pgdata string) bool {
	if !alive(pid) || !isPostgres(pid) {
		return false
	}
	want, err := os.Stat(pgdata)
	if err != nil {
		return false
	}
	if cwd, err := os.Stat("/proc/" + strconv.Itoa(pid) + "/cwd"); err == nil {
		return os.SameFile(cwd, want)
	}
	args := cmdline(pid)
	for i, a := range args {
		var d string
		switch {
		case (a == "-D" || a == "--data-directory") && i+1 < len(args):
			d = args[i+1]
		case strings.HasPrefix(a, "-D"):
			d = a[2:]
		case strings.HasPrefix(a, "--data-directory="):
			d = strings.TrimPrefix(a, "--data-directory=")
		default:
			continue
		}
		if fi, err := os.Stat(d); err == nil && os.SameFile(fi, want) {
			return true
		}
	}
	return false
}

// stopProcess shuts a postmaster down: SIGINT, then SIGQUIT once ctx is done
// (or after defaultFastShutdown without a deadline), then SIGKILL. wait must
// report whether the process exited before its context is done.
func stopProcess(ctx context.Context, log *slog.Logger, pid int, wait func(context.Context) bool) error {
	if err := syscall.Kill(pid, syscall.SIGINT); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return nil
		}
		return fmt.Errorf("signal postmaster %d: %w", pid, err)
	}
	fast := ctx
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		fast, cancel = context.WithTimeout(ctx, defaultFastShutdown)
		defer cancel()
	}
	if wait(fast) {
		return nil
	}
	for _, sig := range []syscall.Signal{syscall.SIGQUIT, syscall.SIGKILL} {
		log.Warn("postgres still running, escalating", "pid", pid, "signal", sig.String())
		if err := syscall.Kill(pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("signal postmaster %d: %w", pid, err)
		}
		wctx, cancel := context.WithTimeout(context.Background(), escalationWait)
		gone := wait(wctx)
		cancel()
		if gone {
			return nil
		}
	}
	return fmt.Errorf("postmaster %d still running after SIGKILL", pid)
}

// pollGone returns a wait function for stopProcess that polls a process that
// is not our child.
func pollGone(pid int) func(context.Context) bool {
	return func(ctx context.Context) bool {
		t := time.NewTicker(pollInterval)
		defer t.Stop()
		for {
			if !alive(pid) {
				return true
			}
			select {
			case <-ctx.Done():
				return !alive(pid)
			case <-t.C:
			}
		}
	}
}

// clearPrevious makes the data folder ready for a new postmaster: it stops a
// live postmaster of this folder (an orphan of an earlier process), waits for
// leftover backends of a killed one, and removes a stale postmaster.pid and
// socket lock file.
func clearPrevious(ctx context.Context, lay layout, log *slog.Logger) error {
	pf, ok, err := readPIDFile(lay.pidFile())
	if err != nil {
		return err
	}
	ports := []int{lay.port}
	if ok {
		if pf.port > 0 && pf.port != lay.port {
			ports = append(ports, pf.port)
		}
		if isPostmasterOf(pf.pid, lay.pgdata) {
			log.Warn("stopping postgres left running for this data folder", "pid", pf.pid)
			if err := stopProcess(ctx, log, pf.pid, pollGone(pf.pid)); err != nil {
				return fmt.Errorf("stop previous postgres: %w", err)
			}
		} else {
			log.Info("removing stale postmaster.pid", "pid", pf.pid)
		}
	}
	if err := waitLingering(ctx, lay.pgdata, log); err != nil {
		return err
	}
	stale := []string{lay.pidFile()}
	for _, p := range ports {
		sock := filepath.Join(lay.run, ".s.PGSQL."+strconv.Itoa(p))
		stale = append(stale, sock+".lock", sock)
	}
	for _, p := range stale {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove stale %s: %w", p, err)
		}
	}
	return nil
}

// waitLingering waits for postgres processes still working in pgdata
// (backends of a killed postmaster) to exit, and kills them after lingerWait:
// PostgreSQL will not start while they hold the old shared memory.
func waitLingering(ctx context.Context, pgdata string, log *slog.Logger) error {
	deadline := time.Now().Add(lingerWait)
	killed := false
	for {
		pids := lingering(pgdata)
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			if killed {
				return fmt.Errorf("postgres processes %v of %s survive SIGKILL", pids, pgdata)
			}
			log.Warn("killing leftover postgres processes", "pids", pids)
			for _, pid := range pids {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			killed = true
			deadline = time.Now().Add(escalationWait)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for leftover postgres processes %v: %w", pids, ctx.Err())
		case <-time.After(pollInterval):
		}
	}
}

// lingering lists live postgres processes whose working directory is pgdata.
// Processes of other users are only seen when running as root.
func lingering(pgdata string) []int {
	want, err := os.Stat(pgdata)
	if err != nil {
		return nil
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		cwd, err := os.Stat("/proc/" + e.Name() + "/cwd")
		if err != nil || !os.SameFile(cwd, want) {
			continue
		}
		if alive(pid) && isPostgres(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// StopDir stops the server of the data folder dir, found through
// <dir>/pg/postmaster.pid: typically a detached cluster started by another
// process. It returns nil if no server of that folder runs, and ErrInUse
// when a live process owns it (yakor serve). The shutdown escalates like
// [Cluster.Stop].
func StopDir(ctx context.Context, dir string) error {
	lay, err := newLayout(dir, 0)
	if err != nil {
		return fmt.Errorf("stop cluster: %w", err)
	}
	pf, ok, err := readPIDFile(lay.pidFile())
	if err != nil {
		return fmt.Errorf("stop cluster: %w", err)
	}
	if !ok || !isPostmasterOf(pf.pid, lay.pgdata) {
		return nil
	}
	release, owner, err := own(lay)
	if err != nil {
		return fmt.Errorf("stop cluster: %w", err)
	}
	if release == nil {
		return fmt.Errorf("stop cluster: %w", inUse(lay, owner))
	}
	defer release()
	if err := stopProcess(ctx, slog.New(slog.DiscardHandler), pf.pid, pollGone(pf.pid)); err != nil {
		return fmt.Errorf("stop cluster: %w", err)
	}
	return nil
}
