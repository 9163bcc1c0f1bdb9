package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"yakor/app"
	"yakor/postgres/citus"
	"yakor/postgres/cluster"
)

// loadServer is `yakor serve` run as a subprocess for the load bench, and
// the private PostgreSQL it serves from when the bench runs its own. The
// bench owns that cluster, not the server: a server that ran its own would
// exit with it, while one pointed at a database it does not own waits for
// it to come back, which is what a restart tests.
type loadServer struct {
	url     string // the server's base URL on loopback
	dbURL   string // the database, as the tables' owner
	pid     int
	logPath string
	log     *os.File
	proc    *os.Process
	exited  chan struct{} // closed once the server has exited

	clusterOpts cluster.Options
	mu          sync.Mutex
	cluster     *cluster.Cluster // nil when serving from DatabaseURL
	citus       *citus.Cluster   // the Citus cluster of loadOptions.Citus
	stoppedAt   time.Time        // when the restart began stopping PostgreSQL
}

// startLoadServer starts the private cluster (without o.DatabaseURL), then
// `yakor serve` on a free loopback port, and returns once it is ready.
func startLoadServer(ctx context.Context, o loadOptions, stderr io.Writer) (*loadServer, error) {
	if err := os.MkdirAll(o.BenchDir, 0o755); err != nil {
		return nil, fmt.Errorf("bench load: %w", err)
	}
	s := &loadServer{dbURL: o.DatabaseURL, logPath: filepath.Join(o.BenchDir, "serve.log"), exited: make(chan struct{})}
	if o.Citus {
		c, err := startLoadCitus(ctx, o, stderr)
		if err != nil {
			return nil, err
		}
		s.citus, s.dbURL = c, c.URL()
	} else if s.dbURL == "" {
		log, err := app.NewLogger(app.Config{LogLevel: "warn", LogFormat: "text"}, stderr)
		if err != nil {
			return nil, err
		}
		s.clusterOpts = cluster.Options{Dir: o.BenchDir, BinDir: o.PGBin, User: o.PGUser, Settings: o.PGSettings, Database: loadDatabase, Logger: log}
		cl, err := cluster.Start(ctx, s.clusterOpts)
		if err != nil {
			return nil, fmt.Errorf("bench load: private PostgreSQL in %s: %w", o.BenchDir, err)
		}
		s.cluster, s.dbURL = cl, cl.URL()
		if err := recreateDatabase(ctx, s.dbURL); err != nil {
			s.close(stderr)
			return nil, fmt.Errorf("bench load: %w", err)
		}
	}
	if err := s.serve(ctx, o); err != nil {
		s.close(stderr)
		return nil, err
	}
	return s, nil
}

// loadDatabase is the bench's database in its private cluster, made
// anew for every run, so that no run inherits another's threads or job
// backlog.
const loadDatabase = "yakor_load"

// recreateDatabase drops the database of url and creates it empty.
func recreateDatabase(ctx context.Context, url string) error {
	return onServer(ctx, url, func(conn *pgx.Conn, name string) error {
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			return fmt.Errorf("drop the last run's database: %w", err)
		}
		if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
			return fmt.Errorf("create the database: %w", err)
		}
		return nil
	})
}

// onServer runs fn on a connection to the postgres database of url's
// server, with url's database's name quoted.
func onServer(ctx context.Context, url string, fn func(conn *pgx.Conn, name string) error) error {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return err
	}
	name := pgx.Identifier{cfg.Database}.Sanitize()
	cfg.Database = "postgres"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("connect to the server of %s: %w", name, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return fn(conn, name)
}

// serve runs the server and waits until /readyz says ready.
func (s *loadServer) serve(ctx context.Context, o loadOptions) error {
	f, err := os.Create(s.logPath)
	if err != nil {
		return fmt.Errorf("bench load: server log: %w", err)
	}
	s.log = f
	pr, pw, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("bench load: %w", err)
	}
	defer pr.Close()
	cmd := exec.Command(o.Binary, append([]string{"serve", "--addr", "127.0.0.1:0"}, o.ServeArgs...)...)
	cmd.Env = loadServeEnv(os.Environ(), s.dbURL, o.DatabaseURL == "")
	cmd.Stdout, cmd.Stderr = pw, f
	// The server gets SIGTERM should the bench die; Pdeathsig follows the
	// thread that forked it, so that thread is kept for the server's life.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		_ = cmd.Wait()
		close(s.exited)
	}()
	err = <-started
	pw.Close()
	if err != nil {
		return fmt.Errorf("bench load: run %s serve: %w", o.Binary, err)
	}
	s.proc, s.pid = cmd.Process, cmd.Process.Pid

	// The server prints its address on stdout; the rest goes to the log.
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			if u, ok := strings.CutPrefix(line, "yakor listening on "); ok {
				select {
				case addr <- u:
				default:
				}
			}
			fmt.Fprintln(f, line)
		}
	}()
	deadline := time.After(2 * time.Minute)
	select {
	case s.url = <-addr:
	case <-s.exited:
		return fmt.Errorf("bench load: yakor serve exited during start; end of %s:\n%s", s.logPath, s.logTail())
	case <-deadline:
		return fmt.Errorf("bench load: yakor serve did not start listening; end of %s:\n%s", s.logPath, s.logTail())
	case <-ctx.Done():
		return ctx.Err()
	}
	return s.waitReady(ctx, 2*time.Minute)
}

// loadServeEnv is the server's environment: the caller's, with the
// database named and every model role offline. ownDB drops a service
// login meant for another server.
func loadServeEnv(env []string, dbURL string, ownDB bool) []string {
	out := make([]string, 0, len(env)+4)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "DATABASE_URL", strings.HasSuffix(k, "_PROVIDER") && strings.HasPrefix(k, "YAKOR_"):
			continue
		case k == "YAKOR_DATABASE_SERVICE_URL" && ownDB:
			continue
		}
		out = append(out, kv)
	}
	return append(out, "DATABASE_URL="+dbURL,
		"YAKOR_CHAT_PROVIDER=offline", "YAKOR_HELPER_PROVIDER=offline", "YAKOR_EMBED_PROVIDER=offline")
}

// waitReady polls /readyz until it says ready.
func (s *loadServer) waitReady(ctx context.Context, limit time.Duration) error {
	c := &http.Client{Timeout: 5 * time.Second}
	deadline := time.Now().Add(limit)
	for {
		req, _ := http.NewRequestWithContext(ctx, "GET", s.url+"/readyz", nil)
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-s.exited:
			return fmt.Errorf("bench load: yakor serve exited; end of %s:\n%s", s.logPath, s.logTail())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("bench load: yakor serve not ready after %v; end of %s:\n%s", limit, s.logPath, s.logTail())
		}
	}
}

// restartPostgres stops the private cluster (mode "fast" or "immediate")
// and starts it again on the same folder and socket, then waits until the
// server says it is ready again.
func (s *loadServer) restartPostgres(ctx context.Context, mode string, stderr io.Writer) (*restartReport, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cluster == nil {
		return nil, errors.New("no private cluster to restart")
	}
	fmt.Fprintf(stderr, "bench load: restarting PostgreSQL (%s shutdown)…\n", mode)
	rr := &restartReport{Mode: mode}
	s.stoppedAt = time.Now()
	cl := s.cluster
	switch mode {
	case "immediate":
		if err := syscall.Kill(cl.PID(), syscall.SIGQUIT); err != nil {
			return nil, fmt.Errorf("signal postmaster: %w", err)
		}
		select {
		case <-cl.Done():
		case <-time.After(time.Minute):
			return nil, errors.New("postmaster still running a minute after SIGQUIT")
		}
	default:
		sctx, cancel := context.WithTimeout(ctx, time.Minute)
		err := cl.Stop(sctx)
		cancel()
		if err != nil {
			return nil, err
		}
	}
	rr.StopMs = ms(time.Since(s.stoppedAt))
	t := time.Now()
	cl, err := cluster.Start(ctx, s.clusterOpts)
	if err != nil {
		return rr, err
	}
	s.cluster = cl
	rr.StartMs = ms(time.Since(t))
	t = time.Now()
	if err := s.waitReady(ctx, 2*time.Minute); err != nil {
		return rr, err
	}
	rr.ReadyMs = ms(time.Since(t))
	fmt.Fprintf(stderr, "bench load: PostgreSQL is back (stopped in %.0f ms, started in %.0f ms, yakor ready %.0f ms later)\n", rr.StopMs, rr.StartMs, rr.ReadyMs)
	return rr, nil
}

// peakMemory is the server's peak resident memory (VmHWM), 0 when it
// cannot be read.
func (s *loadServer) peakMemory() int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(s.pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// close stops the server (SIGTERM, SIGKILL after 40 s), then the private
// cluster.
func (s *loadServer) close(stderr io.Writer) {
	if s.proc != nil {
		_ = s.proc.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(40 * time.Second):
			fmt.Fprintln(stderr, "bench load: yakor serve did not stop after SIGTERM; killing it")
			_ = s.proc.Kill()
			<-s.exited
		}
	}
	if s.log != nil {
		s.log.Close()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if s.cluster != nil {
		if err := s.cluster.Stop(ctx); err != nil {
			fmt.Fprintf(stderr, "bench load: stop private PostgreSQL: %v\n", err)
		}
	}
	if s.citus != nil {
		if err := s.citus.Stop(ctx); err != nil {
			fmt.Fprintf(stderr, "bench load: stop the Citus cluster: %v\n", err)
		}
	}
}

// logTail is the end of the server's log.
func (s *loadServer) logTail() string {
	b, err := os.ReadFile(s.logPath)
	if err != nil {
		return fmt.Sprintf("(cannot read: %v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-30):], "\n")
}
