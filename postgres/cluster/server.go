package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// launch runs the postmaster as a child process with its output appended to
// postgres.log. It returns once the process has been started.
func launch(bin string, lay layout, a *account, o Options, log *slog.Logger) (*Cluster, error) {
	f, err := os.OpenFile(lay.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open server log: %w", err)
	}
	defer f.Close() // the child keeps its own descriptor
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("open server log: %w", err)
	}
	fmt.Fprintf(f, "--- yakor: starting postgres at %s\n", time.Now().Format(time.RFC3339))

	cmd := exec.Command(filepath.Join(bin, "postgres"), serverArgs(lay, o.Settings)...)
	cmd.Dir = lay.pgdata
	cmd.Env = childEnv()
	cmd.Stdout = f
	cmd.Stderr = f
	attr := a.sysProcAttr()
	if o.Detach {
		attr.Setsid = true
	} else {
		// Own process group: a terminal's Ctrl-C reaches only Yakor, which
		// then stops the server in order. Pdeathsig covers a parent crash.
		attr.Setpgid = true
		attr.Pdeathsig = syscall.SIGINT
	}
	cmd.SysProcAttr = attr

	c := &Cluster{
		opts:      o,
		lay:       lay,
		log:       log,
		done:      make(chan struct{}),
		logOffset: fi.Size(),
	}
	started := make(chan error, 1)
	go func() {
		if !o.Detach {
			// Pdeathsig fires when the thread that forked the child exits,
			// not the process (golang/go#27505): keep this goroutine on its
			// thread for as long as the server runs.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
		}
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		c.waitErr = cmd.Wait()
		close(c.done)
	}()
	if err := <-started; err != nil {
		return nil, fmt.Errorf("run postgres: %w", err)
	}
	c.pid = cmd.Process.Pid
	log.Info("postgres started", "pid", c.pid, "log", lay.logPath)
	return c, nil
}

// serverArgs returns the postmaster's command line: the data directory, the
// socket-only listening settings and the extra settings in name order.
func serverArgs(lay layout, settings map[string]string) []string {
	sockDir := lay.run
	if strings.ContainsAny(sockDir, " \t") {
		sockDir = `"` + sockDir + `"`
	}
	args := []string{
		"-D", lay.pgdata,
		"-c", "listen_addresses=",
		"-c", "unix_socket_directories=" + sockDir,
		"-c", "unix_socket_permissions=0700",
		"-c", "port=" + strconv.Itoa(lay.port),
	}
	names := make([]string, 0, len(settings))
	for k := range settings {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		args = append(args, "-c", k+"="+settings[k])
	}
	return args
}

// ready waits until the server accepts connections, it exits, or the start
// timeout passes.
func (c *Cluster) ready(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, c.opts.StartTimeout)
	defer cancel()
	var last error
	for {
		actx, acancel := context.WithTimeout(ctx, 2*time.Second)
		conn, err := pgx.Connect(actx, c.dsn("postgres"))
		acancel()
		if err == nil {
			return conn.Close(ctx)
		}
		last = err
		select {
		case <-c.done:
			return fmt.Errorf("postgres exited during start (%v); end of %s:\n%s", c.waitErr, c.lay.logPath, c.logTail())
		case <-ctx.Done():
			return fmt.Errorf("wait for postgres to accept connections (timeout %s, last error: %v): %w; end of %s:\n%s",
				c.opts.StartTimeout, last, ctx.Err(), c.lay.logPath, c.logTail())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// ensureDatabase creates the application database if it does not exist.
func (c *Cluster) ensureDatabase(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, c.dsn("postgres"))
	if err != nil {
		return fmt.Errorf("ensure database: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var exists bool
	const q = `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`
	if err := conn.QueryRow(ctx, q, c.opts.Database).Scan(&exists); err != nil {
		return fmt.Errorf("ensure database %q: %w", c.opts.Database, err)
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{c.opts.Database}.Sanitize())
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P04" { // duplicate_database: created meanwhile
		err = nil
	}
	if err != nil {
		return fmt.Errorf("create database %q: %w", c.opts.Database, err)
	}
	c.log.Info("created database", "database", c.opts.Database)
	return nil
}

// logTail returns the last lines postgres wrote to its log since this start.
func (c *Cluster) logTail() string {
	f, err := os.Open(c.lay.logPath)
	if err != nil {
		return fmt.Sprintf("(cannot read log: %v)", err)
	}
	defer f.Close()
	const maxTail = 8 << 10
	start := c.logOffset
	if fi, err := f.Stat(); err == nil && fi.Size()-start > maxTail {
		start = fi.Size() - maxTail
	}
	b, err := io.ReadAll(io.NewSectionReader(f, start, maxTail))
	if err != nil {
		return fmt.Sprintf("(cannot read log: %v)", err)
	}
	return lastLines(b, 20)
}
