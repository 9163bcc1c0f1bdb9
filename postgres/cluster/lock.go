package cluster

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// ErrInUse means another live process owns the data folder's server: it
// started it and serves from it (yakor serve). [Start] without
// Options.Attach and [StopDir] refuse such a folder rather than stop the
// server under its owner.
var ErrInUse = errors.New("data folder in use")

// The owner of a data folder is the process that started its server and
// serves from it: <dir>/owner.pid names it (its pid and start time, so a
// reused pid is not taken for it) for as long as the server runs. Nothing
// is held open in the folder, so its disk can be unmounted under a server
// that has stopped. A killed owner leaves an unowned folder whose orphaned
// server the next Start stops and replaces; a detached server
// (Options.Detach) is unowned once the process that started it exits.
func (l layout) ownerFile() string { return filepath.Join(l.dir, "owner.pid") }

// owned are the data folders this process owns, by absolute path: a
// restart of the server (NoInit, after it stopped on its own) takes the
// ownership the process already has.
var owned = struct {
	sync.Mutex
	dirs map[string]int // references
}{dirs: map[string]int{}}

// own makes this process the owner of lay's folder. It returns the release
// to call once the server is stopped, or, when another live process owns
// the folder, a nil release and that process's pid.
func own(lay layout) (release func(), owner int, err error) {
	owned.Lock()
	defer owned.Unlock()
	if owned.dirs[lay.dir] > 0 {
		owned.dirs[lay.dir]++
		return releaseOnce(lay), 0, nil
	}
	f, err := os.OpenFile(lay.ownerFile(), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, 0, fmt.Errorf("open %s: %w", lay.ownerFile(), err)
	}
	defer f.Close()
	// The lock makes reading the owner and writing this process one step
	// among processes starting at once; it is not kept.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return nil, 0, fmt.Errorf("lock %s: %w", lay.ownerFile(), err)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", lay.ownerFile(), err)
	}
	if pid, start, ok := parseOwner(string(b)); ok && pid != os.Getpid() && startTime(pid) == start {
		return nil, pid, nil
	}
	me := fmt.Sprintf("%d %s\n", os.Getpid(), startTime(os.Getpid()))
	if err := f.Truncate(0); err != nil {
		return nil, 0, fmt.Errorf("write %s: %w", lay.ownerFile(), err)
	}
	if _, err := f.WriteAt([]byte(me), 0); err != nil {
		return nil, 0, fmt.Errorf("write %s: %w", lay.ownerFile(), err)
	}
	owned.dirs[lay.dir] = 1
	return releaseOnce(lay), 0, nil
}

// parseOwner reads owner.pid: "pid start-time".
func parseOwner(s string) (pid int, start string, ok bool) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return 0, "", false
	}
	pid, err := strconv.Atoi(f[0])
	return pid, f[1], err == nil && pid > 0
}

// startTime is when process pid started, in clock ticks since boot
// (/proc/<pid>/stat, field 22); "" when no such process runs.
func startTime(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return ""
	}
	return f[19]
}

// releaseOnce returns a func that drops one reference to lay's
// ownership, once; the last one gives the folder up.
func releaseOnce(lay layout) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			owned.Lock()
			defer owned.Unlock()
			if owned.dirs[lay.dir]--; owned.dirs[lay.dir] > 0 {
				return
			}
			delete(owned.dirs, lay.dir)
			// Best effort: on a disk gone read-only the file stays, naming
			// a process that no longer serves from the folder.
			b, err := os.ReadFile(lay.ownerFile())
			if pid, _, ok := parseOwner(string(b)); err == nil && ok && pid == os.Getpid() {
				_ = os.Remove(lay.ownerFile())
			}
		})
	}
}

// inUse is the error for a folder another process owns.
func inUse(lay layout, owner int) error {
	who := "another process"
	if owner > 0 {
		who = "process " + strconv.Itoa(owner)
	}
	return fmt.Errorf("%w: the PostgreSQL in %s is run by %s (yakor serve?); stop that first, or use another data folder", ErrInUse, lay.dir, who)
}

// attach returns the running server of a folder another process owns,
// reached through its socket; stopping it leaves the server running.
func attach(lay layout, o Options, owner int, log *slog.Logger) (*Cluster, error) {
	pf, ok, err := readPIDFile(lay.pidFile())
	if err != nil {
		return nil, err
	}
	if !ok || !isPostmasterOf(pf.pid, lay.pgdata) {
		return nil, fmt.Errorf("%w, and its server is not running now (it is being started again?); try again shortly", inUse(lay, owner))
	}
	return &Cluster{opts: o, lay: lay, log: log, pid: pf.pid, done: make(chan struct{}), attached: true, release: func() {}}, nil
}
