package citus

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"yakor/postgres/cluster"
)

// Start brings up the coordinator and opts.Workers workers in opts.Dir and
// returns once the coordinator has every worker registered: the nodes are
// started side by side (initdb on the first start), each gets the citus
// extension and opts.Extensions in its application database, and the
// coordinator learns its own name (citus_set_coordinator_host) and the
// workers' (citus_add_node). If any step fails, the nodes this call started
// are stopped.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	o, err := opts.normalize()
	if err != nil {
		return nil, fmt.Errorf("citus: start: %w", err)
	}
	began := time.Now()
	c := &Cluster{opts: o, nodes: make([]*cluster.Cluster, o.Workers+1)}
	err = parallel(len(c.nodes), func(i int) (err error) {
		c.nodes[i], err = c.startNode(ctx, i)
		return err
	})
	if err != nil {
		c.abort()
		return nil, fmt.Errorf("citus: start: %w", err)
	}
	// The coordinator sends its DDL on to registered workers: only once
	// they all run.
	if err := createExtensions(ctx, c.nodes[0].URL(), c.opts.Extensions); err != nil {
		c.abort()
		return nil, fmt.Errorf("citus: start: coordinator: %w%s", err, installHint(err))
	}
	if err := c.register(ctx); err != nil {
		c.abort()
		return nil, fmt.Errorf("citus: start: %w", err)
	}
	o.Logger.Info("citus ready", "dir", o.Dir, "workers", o.Workers, "coordinator", c.nodes[0].SocketDir(),
		"took", time.Since(began).Round(time.Millisecond))
	return c, nil
}

// startNode starts node i and, for a worker, makes its extensions exist.
// On failure the node is stopped again and nil returned.
func (c *Cluster) startNode(ctx context.Context, i int) (*cluster.Cluster, error) {
	no := c.opts.nodeOptions(i)
	name := filepath.Base(no.Dir)
	n, err := cluster.Start(ctx, no)
	if err != nil {
		return nil, fmt.Errorf("%s: %w%s", name, err, installHint(err))
	}
	err = checkSocket(n, no)
	if err == nil && i > 0 {
		err = createExtensions(ctx, n.URL(), c.opts.Extensions)
	}
	if err != nil {
		stopQuietly(n, no.Logger)
		return nil, fmt.Errorf("%s: %w%s", name, err, installHint(err))
	}
	return n, nil
}

// installHint says how to install Citus when err says it is missing: its
// library (the server does not start) or its extension files.
func installHint(err error) string {
	s := err.Error()
	if strings.Contains(s, `could not access file "citus"`) || strings.Contains(s, `extension "citus" is not available`) ||
		strings.Contains(s, "citus.control") {
		return "\nCitus is not installed for this PostgreSQL: run scripts/setup.sh citus"
	}
	return ""
}

// checkSocket makes sure the node listens where citus.local_hostname says
// it does.
func checkSocket(n *cluster.Cluster, no cluster.Options) error {
	if got, want := n.SocketDir(), no.Settings["citus.local_hostname"]; got != want {
		return fmt.Errorf("socket in %s, not %s as citus.local_hostname says", got, want)
	}
	return nil
}

// createExtensions creates citus, then those of exts missing, in the
// database url names. A worker already registered (its metadata synced)
// refuses DDL: the extensions it lacks come from the coordinator, which
// sends CREATE EXTENSION on to its workers.
func createExtensions(ctx context.Context, url string, exts []string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("create extensions: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS citus"); err != nil {
		return fmt.Errorf("create extension citus: %w", err)
	}
	var registered bool
	const worker = `SELECT groupid > 0 FROM pg_dist_local_group`
	if err := conn.QueryRow(ctx, worker).Scan(&registered); err != nil {
		return fmt.Errorf("create extensions: %w", err)
	}
	rows, err := conn.Query(ctx, `SELECT e FROM unnest($1::text[]) e WHERE NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = e)`, exts)
	if err != nil {
		return fmt.Errorf("create extensions: %w", err)
	}
	missing, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || registered {
		return err
	}
	for _, e := range missing {
		if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS "+pgx.Identifier{e}.Sanitize()); err != nil {
			return fmt.Errorf("create extension %s: %w", e, err)
		}
	}
	return nil
}

// register names the coordinator and adds every worker in the
// coordinator's metadata; both functions leave a node already there as it
// is.
func (c *Cluster) register(ctx context.Context) error {
	coord := c.nodes[0]
	conn, err := pgx.Connect(ctx, coord.URL())
	if err != nil {
		return fmt.Errorf("register nodes: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "SELECT citus_set_coordinator_host($1, $2)", coord.SocketDir(), coord.Port()); err != nil {
		return fmt.Errorf("set coordinator host %s: %w", coord.SocketDir(), err)
	}
	for _, w := range c.nodes[1:] {
		if _, err := conn.Exec(ctx, "SELECT citus_add_node($1, $2)", w.SocketDir(), w.Port()); err != nil {
			return fmt.Errorf("add worker %s: %w", w.SocketDir(), err)
		}
	}
	return nil
}

// abort stops the nodes of a start that failed.
func (c *Cluster) abort() {
	for i, n := range c.nodes {
		if n != nil {
			stopQuietly(n, c.opts.Logger.With("node", filepath.Base(nodeDir(c.opts.Dir, i))))
		}
	}
}
