package citus

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"yakor/postgres"
)

// Node is a node of a Citus cluster as the coordinator's metadata names
// it (its host: a socket folder here).
type Node struct {
	Host string
	Port int
}

// URL is the connection string of database db on the node, as user.
func (n Node) URL(user, db string) string {
	return postgres.DSN(n.Host, n.Port, user, db)
}

// Workers reads the active primary workers from the coordinator's
// metadata, in the order they were added.
func Workers(ctx context.Context, conn *pgx.Conn) ([]Node, error) {
	rows, err := conn.Query(ctx, `SELECT nodename, nodeport FROM pg_dist_node WHERE isactive AND noderole = 'primary' AND groupid <> 0 ORDER BY nodeid`)
	if err != nil {
		return nil, fmt.Errorf("citus: workers: %w", err)
	}
	nodes, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Node, error) {
		var n Node
		return n, r.Scan(&n.Host, &n.Port)
	})
	if err == nil && len(nodes) == 0 {
		err = fmt.Errorf("the coordinator has no active workers")
	}
	if err != nil {
		return nil, fmt.Errorf("citus: workers: %w", err)
	}
	return nodes, nil
}

// nodesOf reads, through the coordinator's database coordinator names,
// the user it connects as, the coordinator's node and the workers.
func nodesOf(ctx context.Context, coordinator string) (user string, coord Node, workers []Node, err error) {
	admin, err := pgx.Connect(ctx, coordinator)
	if err != nil {
		return "", Node{}, nil, err
	}
	defer admin.Close(context.WithoutCancel(ctx))
	if workers, err = Workers(ctx, admin); err != nil {
		return "", Node{}, nil, err
	}
	cfg := admin.Config()
	return cfg.User, Node{Host: cfg.Host, Port: int(cfg.Port)}, workers, nil
}

// CreateDatabase makes database name a Citus database of the cluster whose
// coordinator's database coordinator names: the database on the
// coordinator and on every worker, each with citus and exts, and the
// coordinator and workers registered in the new database's metadata (a
// Citus database's metadata is its own). A template cannot do it: the
// shards live on the workers.
func CreateDatabase(ctx context.Context, coordinator, name string, exts []string) error {
	user, coord, workers, err := nodesOf(ctx, coordinator)
	if err != nil {
		return fmt.Errorf("citus: create database %s: %w", name, err)
	}
	for _, n := range append([]Node{coord}, workers...) {
		if err := createOn(ctx, n, user, name, exts); err != nil {
			return fmt.Errorf("citus: create database %s on %s: %w", name, n.Host, err)
		}
	}
	conn, err := pgx.Connect(ctx, coord.URL(user, name))
	if err != nil {
		return fmt.Errorf("citus: create database %s: %w", name, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, `SELECT citus_set_coordinator_host($1, $2)`, coord.Host, coord.Port); err != nil {
		return fmt.Errorf("citus: create database %s: set the coordinator: %w", name, err)
	}
	for _, w := range workers {
		if _, err := conn.Exec(ctx, `SELECT citus_add_node($1, $2)`, w.Host, w.Port); err != nil {
			return fmt.Errorf("citus: create database %s: add worker %s: %w", name, w.Host, err)
		}
	}
	return nil
}

// createOn creates database name on node n with citus and exts.
func createOn(ctx context.Context, n Node, user, name string, exts []string) error {
	conn, err := pgx.Connect(ctx, n.URL(user, "postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+" TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C.UTF-8'"); err != nil {
		return err
	}
	return createExtensions(ctx, n.URL(user, name), exts)
}

// DropDatabase drops database name on the coordinator coordinator names
// and on its workers (those of coordinator's own database's metadata).
func DropDatabase(ctx context.Context, coordinator, name string) error {
	user, coord, workers, err := nodesOf(ctx, coordinator)
	if err != nil {
		return fmt.Errorf("citus: drop database %s: %w", name, err)
	}
	for _, n := range append([]Node{coord}, workers...) {
		if err := dropOn(ctx, n.URL(user, "postgres"), name); err != nil {
			return fmt.Errorf("citus: drop database %s on %s: %w", name, n.Host, err)
		}
	}
	return nil
}

func dropOn(ctx context.Context, url, name string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	return err
}
