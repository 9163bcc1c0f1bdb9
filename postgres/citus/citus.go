// Package citus runs a private Citus cluster from the machine's PostgreSQL
// binaries and its citus extension (scripts/setup.sh citus installs it): a
// coordinator and workers, each a private cluster of package cluster, for the
// distributed tests and for trials. The folder holds one cluster folder per
// node:
//
//	<dir>/coordinator   the coordinator: applications connect here
//	<dir>/worker1 ...   the workers, which hold the shards
//
// Like a single-node cluster, every node listens on its Unix socket only
// (<node>/run). Citus names a node by that socket folder, which libpq takes as
// the host, so the coordinator reaches the workers, and every node reaches
// itself (citus.local_hostname, used by shard moves and cleanup), without a
// TCP port.
//
// [Start] starts the nodes (initdb on the first start) with Citus preloaded,
// creates the extension citus and Options.Extensions in the application
// database of every node, and registers the coordinator and the workers in
// the coordinator's metadata. Every step is idempotent: Start on a folder
// whose nodes run ends with the same cluster (the nodes are restarted, as
// package cluster restarts a server left running by a process that has
// exited). [StopDir] stops every node of a folder; [IsLayout] tells a Citus
// folder from a single-node one.
package citus

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"yakor/postgres/cluster"
)

// CoordinatorDir is the coordinator's folder inside a Citus cluster's folder.
const CoordinatorDir = "coordinator"

// workerPrefix names the workers' folders: worker1, worker2, ...
const workerPrefix = "worker"

// Options configure [Start]. Dir and Workers are required.
type Options struct {
	// Dir holds the nodes' folders. It is made absolute.
	Dir string
	// Workers is how many workers to run, at least 1. A later Start with
	// more adds workers; one with fewer leaves the others registered (and
	// running, if they are).
	Workers int
	// BinDir, User, Database, Detach and StartTimeout are passed to every
	// node's cluster.Options (see there; Database defaults to "yakor").
	BinDir       string
	User         string
	Database     string
	Detach       bool
	StartTimeout time.Duration
	// ShardCount is citus.shard_count, the shards of a table distributed
	// from now on. 0: Citus's default (32), heavy for a test's many tables.
	ShardCount int
	// Extensions are created (IF NOT EXISTS) on every node before the
	// workers are registered: those a distributed table's columns or
	// indexes use must exist on the workers too (vector, pg_trgm, ...).
	Extensions []string
	// Settings are extra server settings for every node, after the ones
	// this package sets (which they override, except that citus stays in
	// shared_preload_libraries).
	Settings map[string]string
	// Logger receives progress messages. Nil discards them.
	Logger *slog.Logger
}

// normalize validates o and makes Dir absolute.
func (o Options) normalize() (Options, error) {
	if o.Dir == "" {
		return o, errors.New("options: Dir is required")
	}
	if o.Workers < 1 {
		return o, fmt.Errorf("options: %d workers: a Citus cluster needs at least one", o.Workers)
	}
	if o.ShardCount < 0 {
		return o, fmt.Errorf("options: shard count %d is negative", o.ShardCount)
	}
	abs, err := filepath.Abs(o.Dir)
	if err != nil {
		return o, fmt.Errorf("options: absolute path of %q: %w", o.Dir, err)
	}
	o.Dir = abs
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o, nil
}

// nodeDir is the folder of node i: 0 is the coordinator, 1..n the workers.
func nodeDir(dir string, i int) string {
	if i == 0 {
		return filepath.Join(dir, CoordinatorDir)
	}
	return filepath.Join(dir, workerPrefix+strconv.Itoa(i))
}

// nodeOptions are node i's cluster options.
func (o Options) nodeOptions(i int) cluster.Options {
	dir := nodeDir(o.Dir, i)
	return cluster.Options{
		Dir:          dir,
		BinDir:       o.BinDir,
		User:         o.User,
		Database:     o.Database,
		Detach:       o.Detach,
		StartTimeout: o.StartTimeout,
		// cluster puts the socket in <node>/run; Start checks it did.
		Settings: o.nodeSettings(filepath.Join(dir, "run")),
		Logger:   o.Logger.With("node", filepath.Base(dir)),
	}
}

// nodeSettings are a node's server settings. They go on its command line
// at every start through this package, so a node always runs with them.
func (o Options) nodeSettings(socketDir string) map[string]string {
	s := map[string]string{
		"shared_preload_libraries": "citus",
		// Row-level security reads the tenant from SET LOCAL yakor.tenant:
		// with 'local', Citus sends a transaction's SET LOCALs on to the
		// workers' shard queries (set_config is not propagated).
		"citus.propagate_set_commands": "local",
		// Citus connects to its own node (shard cleanup, moves, reference
		// tables) by this host name; "localhost" would need TCP.
		"citus.local_hostname": socketDir,
		// No reports to Citus Data from a private cluster.
		"citus.enable_statistics_collection": "off",
		// Moving a shard while it is written to (a tenant rebalanced)
		// copies it by logical replication.
		"wal_level": "logical",
	}
	if o.ShardCount > 0 {
		s["citus.shard_count"] = strconv.Itoa(o.ShardCount)
	}
	for k, v := range o.Settings {
		if strings.EqualFold(k, "shared_preload_libraries") && !preloads(v, "citus") {
			v = strings.TrimSuffix("citus,"+v, ",")
		}
		s[k] = v
	}
	return s
}

// preloads reports whether the shared_preload_libraries value v lists lib.
func preloads(v, lib string) bool {
	for _, l := range strings.Split(v, ",") {
		if strings.Trim(strings.TrimSpace(l), `"`) == lib {
			return true
		}
	}
	return false
}

// IsLayout reports whether dir holds a Citus cluster of this package (its
// coordinator's folder).
func IsLayout(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, CoordinatorDir))
	return err == nil && fi.IsDir()
}

// Cluster is a running Citus cluster started by [Start].
type Cluster struct {
	opts Options

	mu    sync.Mutex
	nodes []*cluster.Cluster // the coordinator, then the workers
}

// URL returns the DSN of the application database on the coordinator.
func (c *Cluster) URL() string { return c.node(0).URL() }

// WorkerURL returns the DSN of the application database on worker i
// (1-based, as the folders are named), for looking at its shards.
func (c *Cluster) WorkerURL(i int) string { return c.node(i).URL() }

// WorkerHost returns worker i's node name and port in Citus's metadata
// (pg_dist_node): its socket folder and port.
func (c *Cluster) WorkerHost(i int) (string, int) {
	n := c.node(i)
	return n.SocketDir(), n.Port()
}

func (c *Cluster) node(i int) *cluster.Cluster {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nodes[i]
}
