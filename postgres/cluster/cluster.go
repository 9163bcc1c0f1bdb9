// Package cluster runs a private PostgreSQL cluster inside Yakor's data folder.
//
// Yakor's serve command uses it when no DATABASE_URL is given. The folder
// holds the whole cluster:
//
//	<dir>/pg            PGDATA, created by initdb on the first start
//	<dir>/run           the Unix socket directory (no TCP port is opened)
//	<dir>/postgres.log  the server log, appended to on every start
//
// [Start] initialises the cluster when needed, clears a stale postmaster.pid
// or stops an orphaned server of the same folder, runs the postgres binary as
// a child process, waits until it accepts connections and makes sure the
// application database exists. [Cluster.URL] gives the DSN to connect with,
// [Cluster.Stop] shuts the server down, and [StopDir] stops a detached server
// found through its postmaster.pid.
//
// PostgreSQL refuses to run as root, so when the calling process is root the
// server runs as an unprivileged user (Options.User, default "postgres") and
// the folders it writes are handed over to that user.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"yakor/postgres"
)

// Options configure [Start]. Only Dir is required.
type Options struct {
	// Dir is the data folder holding pg/, run/ and postgres.log. It is made
	// absolute.
	Dir string
	// BinDir holds the postgres and initdb binaries. Empty: the newest
	// /usr/lib/postgresql/<N>/bin with N >= 15 (preferring the version the
	// data folder was made with), else `pg_config --bindir`, else PATH.
	BinDir string
	// User is the account the server runs as when the caller is root.
	// Default "postgres".
	User string
	// Database is the application database made sure to exist. Default "yakor".
	Database string
	// Port names the socket file (.s.PGSQL.<port>); no TCP port is opened.
	// Default 5432.
	Port int
	// Settings are extra server settings passed as -c name=value, for
	// example {"fsync": "off"} in tests. fsync=off also makes initdb skip
	// its syncs. listen_addresses, unix_socket_directories and port are
	// owned by this package and rejected here.
	Settings map[string]string
	// Detach lets the server outlive the calling process: it runs in its
	// own session and is not signalled when the parent dies. Without it the
	// server gets SIGINT (fast shutdown) when the parent dies.
	Detach bool
	// Attach lets Start use the server of a folder another live process
	// owns (yakor serve) through its socket, instead of failing with
	// ErrInUse; stopping the returned Cluster leaves that server running.
	// For short commands (keys, migrate) run beside a server.
	Attach bool
	// NoInit makes Start fail rather than run initdb when the folder holds
	// no cluster: a restart must find the cluster it had, not make an
	// empty one (in a folder whose disk is not mounted, say).
	NoInit bool
	// StartTimeout bounds the wait for the server to accept connections.
	// Default 30s.
	StartTimeout time.Duration
	// Logger receives progress messages. Nil discards them.
	Logger *slog.Logger
}

// DefaultUser is the account the server runs as when the caller is root
// and Options.User is empty.
const DefaultUser = "postgres"

// layout names the files and folders of one data folder.
type layout struct {
	dir     string // absolute data folder
	pgdata  string // <dir>/pg
	run     string // <dir>/run, the socket directory
	logPath string // <dir>/postgres.log
	port    int
}

func newLayout(dir string, port int) (layout, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return layout{}, fmt.Errorf("absolute path of %q: %w", dir, err)
	}
	return layout{
		dir:     abs,
		pgdata:  filepath.Join(abs, "pg"),
		run:     filepath.Join(abs, "run"),
		logPath: filepath.Join(abs, "postgres.log"),
		port:    port,
	}, nil
}

// socket is the path of the server's Unix socket.
func (l layout) socket() string {
	return filepath.Join(l.run, ".s.PGSQL."+strconv.Itoa(l.port))
}

func (l layout) pidFile() string { return filepath.Join(l.pgdata, "postmaster.pid") }

// maxSocketPath is the longest socket path accepted; sun_path holds 108
// bytes on Linux, PostgreSQL needs room for its own suffixes.
const maxSocketPath = 99

// ownedSetting reports whether the server setting k is set by this package
// and so cannot be overridden through Options.Settings.
func ownedSetting(k string) bool {
	switch strings.ToLower(k) {
	case "listen_addresses", "unix_socket_directories", "port":
		return true
	}
	return false
}

// normalize fills in defaults and validates o.
func (o Options) normalize() (Options, layout, error) {
	if o.Dir == "" {
		return o, layout{}, errors.New("options: Dir is required")
	}
	if o.User == "" {
		o.User = DefaultUser
	}
	if o.Database == "" {
		o.Database = "yakor"
	}
	if o.Port == 0 {
		o.Port = 5432
	}
	if o.Port < 1 || o.Port > 65535 {
		return o, layout{}, fmt.Errorf("options: port %d out of range", o.Port)
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 30 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.BinDir != "" {
		abs, err := filepath.Abs(o.BinDir)
		if err != nil {
			return o, layout{}, fmt.Errorf("options: absolute path of BinDir: %w", err)
		}
		o.BinDir = abs
	}
	for k := range o.Settings {
		if k == "" || strings.ContainsAny(k, "= \t\n") {
			return o, layout{}, fmt.Errorf("options: invalid setting name %q", k)
		}
		if ownedSetting(k) {
			return o, layout{}, fmt.Errorf("options: setting %q is managed by the cluster package", k)
		}
	}
	lay, err := newLayout(o.Dir, o.Port)
	if err != nil {
		return o, layout{}, fmt.Errorf("options: %w", err)
	}
	o.Dir = lay.dir
	// Connection strings split hosts at commas; quotes and newlines break
	// the server's own settings.
	if strings.ContainsAny(lay.dir, ",\"\n") {
		return o, layout{}, fmt.Errorf("options: data folder %q must not contain commas, quotes or newlines", lay.dir)
	}
	if s := lay.socket(); len(s) > maxSocketPath {
		return o, layout{}, fmt.Errorf("options: socket path %s is %d bytes, Unix sockets allow at most %d: choose a data folder with a shorter path",
			s, len(s), maxSocketPath)
	}
	return o, lay, nil
}

// Cluster is a running PostgreSQL server started by [Start]. Its methods are
// safe for concurrent use.
type Cluster struct {
	opts Options
	lay  layout
	log  *slog.Logger
	pid  int

	done      chan struct{} // closed once the postmaster has exited and been reaped
	waitErr   error         // the postmaster's exit status, set before done closes
	logOffset int64         // size of postgres.log before this start

	// attached: the server is another process's (Options.Attach); Stop
	// leaves it running and Done never closes.
	attached bool
	// release gives up the folder's ownership, once the server is stopped.
	release func()

	mu      sync.Mutex
	stopped bool
	stopErr error
}

// Start brings up the cluster in opts.Dir and returns once it accepts
// connections and the application database exists. On the first start it runs
// initdb; later starts reuse the folder. A stale postmaster.pid is removed, and
// a server of the same folder left running by an earlier process is stopped
// first. If the server exits during start, the error includes the tail of
// postgres.log.
//
// The process that starts the server owns the folder until it stops it: a
// folder another live process owns (yakor serve) is never stopped under
// it; Start fails with ErrInUse, or with Options.Attach returns that
// server, reached through its socket.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	o, lay, err := opts.normalize()
	if err != nil {
		return nil, fmt.Errorf("start cluster: %w", err)
	}
	log := o.Logger.With("dir", lay.dir)

	if _, err := os.Stat(filepath.Join(lay.pgdata, "PG_VERSION")); o.NoInit && err != nil {
		return nil, fmt.Errorf("start cluster: no cluster in %s to start (%w), and not making one", lay.pgdata, err)
	}
	bin, err := findBinDir(o.BinDir, debianPGRoot, dataVersion(lay.pgdata))
	if err != nil {
		return nil, fmt.Errorf("start cluster: %w", err)
	}
	acct, err := lookupAccount(o.User)
	if err != nil {
		return nil, fmt.Errorf("start cluster: %w", err)
	}
	if err := prepareDirs(lay, acct, log); err != nil {
		return nil, fmt.Errorf("start cluster: %w", err)
	}
	release, owner, err := own(lay)
	switch {
	case err != nil:
		return nil, fmt.Errorf("start cluster: %w", err)
	case release == nil && o.Attach:
		c, err := attach(lay, o, owner, log)
		if err != nil {
			return nil, fmt.Errorf("start cluster: %w", err)
		}
		log.Info("using the postgres of a running yakor", "pid", c.pid, "owner", owner)
		return c, nil
	case release == nil:
		return nil, fmt.Errorf("start cluster: %w", inUse(lay, owner))
	}
	c, err := startOwned(ctx, bin, lay, acct, o, log)
	if err != nil {
		release()
		return nil, fmt.Errorf("start cluster: %w", err)
	}
	c.release = release
	if err := c.ready(ctx); err != nil {
		c.abort()
		return nil, fmt.Errorf("start cluster: %w", err)
	}
	if err := c.ensureDatabase(ctx); err != nil {
		c.abort()
		return nil, fmt.Errorf("start cluster: %w", err)
	}
	log.Info("postgres ready", "pid", c.pid, "socket", lay.socket(), "database", o.Database, "detached", o.Detach)
	return c, nil
}

// startOwned starts the server of a folder this process owns: it clears
// what an earlier server left, runs initdb on the first start and
// launches the postmaster.
func startOwned(ctx context.Context, bin string, lay layout, acct *account, o Options, log *slog.Logger) (*Cluster, error) {
	if err := clearPrevious(ctx, lay, log); err != nil {
		return nil, err
	}
	if err := initdb(ctx, bin, lay, acct, o.Settings["fsync"] == "off", log); err != nil {
		return nil, err
	}
	return launch(bin, lay, acct, o, log)
}

// URL returns a keyword/value DSN, accepted by pgx, for the application
// database over the Unix socket.
func (c *Cluster) URL() string { return c.dsn(c.opts.Database) }

// SocketDir returns the folder holding the server's Unix socket (<dir>/run):
// libpq takes it as the host, which is how other servers (Citus's
// coordinator) reach this one.
func (c *Cluster) SocketDir() string { return c.lay.run }

// Port returns the port naming the server's socket file.
func (c *Cluster) Port() int { return c.lay.port }

// PID returns the process id of the postmaster.
func (c *Cluster) PID() int { return c.pid }

// Done returns a channel that is closed once the server process has exited,
// whether through [Cluster.Stop] or on its own.
func (c *Cluster) Done() <-chan struct{} { return c.done }

// Stop shuts the server down: SIGINT (fast shutdown) first, then SIGQUIT and
// finally SIGKILL if it has not exited when ctx is done (or after a minute if
// ctx has no deadline). It waits for the process to exit. Calling Stop again
// returns the first result. It returns an error only if the server could not
// be stopped.
func (c *Cluster) Stop(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped || c.attached {
		return c.stopErr
	}
	c.stopped = true
	c.stopErr = c.shutdown(ctx)
	if c.stopErr != nil {
		c.stopErr = fmt.Errorf("stop cluster: %w", c.stopErr)
		return c.stopErr
	}
	c.release()
	return nil
}

// Attached reports whether the server is another process's (Options.Attach).
func (c *Cluster) Attached() bool { return c.attached }

func (c *Cluster) shutdown(ctx context.Context) error {
	select {
	case <-c.done:
		return nil
	default:
	}
	c.log.Info("stopping postgres", "pid", c.pid)
	return stopProcess(ctx, c.log, c.pid, c.waitDone)
}

// waitDone reports whether the postmaster exited before ctx is done.
func (c *Cluster) waitDone(ctx context.Context) bool {
	select {
	case <-c.done:
		return true
	case <-ctx.Done():
		return false
	}
}

// abort stops a server that failed to come up properly.
func (c *Cluster) abort() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Stop(ctx); err != nil {
		c.log.Error("stop after failed start", "err", err)
	}
}

// dsn builds a keyword/value connection string for database db.
func (c *Cluster) dsn(db string) string { return postgres.DSN(c.lay.run, c.lay.port, "postgres", db) }
