package pgtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"yakor/postgres"
)

// citusNode is a node of the test Citus cluster, as the coordinator's
// metadata names it.
type citusNode struct {
	host string
	port int
}

// NewCitusURL creates a fresh database on the Citus cluster whose
// coordinator TEST_CITUS_URL names: on the coordinator and on every
// worker, each with the citus extension, the workers registered in it,
// migrated (so distributed: migration 00024). It returns the
// coordinator's URL of it; all of it is dropped at cleanup. A Citus
// database cannot be cloned from a template (its shards live on the
// workers), so each one is made and migrated afresh: a few seconds.
func NewCitusURL(tb testing.TB) string {
	tb.Helper()
	return CitusDatabase(tb, CitusURL(tb))
}

// CitusDatabase is NewCitusURL on the cluster whose coordinator base names
// (a test's own cluster, say, whose workers it stops).
func CitusDatabase(tb testing.TB, base string) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		tb.Fatalf("pgtest: TEST_CITUS_URL is set but the coordinator cannot be reached: %v", err)
	}
	defer admin.Close(context.Background())
	workers, err := citusWorkers(ctx, admin)
	if err != nil {
		tb.Fatalf("pgtest: the workers of TEST_CITUS_URL: %v", err)
	}
	cfg := admin.Config()
	coordinator := citusNode{host: cfg.Host, port: int(cfg.Port)}
	name := "yakor_d_" + randomHex(6)
	for _, n := range append([]citusNode{coordinator}, workers...) {
		url := n.url(cfg.User, "postgres")
		if err := citusCreate(ctx, url, name); err != nil {
			tb.Fatalf("pgtest: create %s on %s:%d: %v", name, n.host, n.port, err)
		}
		tb.Cleanup(func() { dropDatabase(tb, url, name) })
	}
	url := withDatabase(base, name)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, `SELECT citus_set_coordinator_host($1, $2)`, coordinator.host, coordinator.port); err != nil {
		tb.Fatalf("pgtest: set the coordinator of %s: %v", name, err)
	}
	for _, w := range workers {
		if _, err := conn.Exec(ctx, `SELECT citus_add_node($1, $2)`, w.host, w.port); err != nil {
			tb.Fatalf("pgtest: add worker %s:%d to %s: %v", w.host, w.port, name, err)
		}
	}
	pool := open(tb, url, 4)
	if err := postgres.Migrate(ctx, pool, Logger(tb)); err != nil {
		tb.Fatalf("pgtest: migrate %s: %v", name, err)
	}
	return url
}

// NewCitusService is NewCitusURL with the owner's pool and the service
// role's DB on it, as NewService gives them; params are run-time settings
// of the service role's connections (e.g. a test's
// citus.multi_task_query_log_level).
func NewCitusService(tb testing.TB, params map[string]string) (*pgxpool.Pool, *postgres.DB) {
	tb.Helper()
	return CitusService(tb, NewCitusURL(tb), params)
}

// CitusService opens the owner's pool and the service role's DB on the
// Citus database url names (made by CitusDatabase).
func CitusService(tb testing.TB, url string, params map[string]string) (*pgxpool.Pool, *postgres.DB) {
	tb.Helper()
	owner := open(tb, url, 4)
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		tb.Fatal(err)
	}
	svcURL := fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable", quote(cfg.Host), cfg.Port, postgres.ServiceRole, quote(cfg.Database))
	for k, v := range params {
		svcURL += " " + k + "=" + quote(v)
	}
	svc, err := postgres.OpenService(context.Background(), url, svcURL, postgres.Options{MaxConns: 8}, Logger(tb))
	if err != nil {
		tb.Fatalf("pgtest: open as the service role: %v", err)
	}
	tb.Cleanup(svc.Pool().Close)
	if !svc.Distributed() {
		tb.Fatalf("pgtest: %s has no citus extension", cfg.Database)
	}
	return owner, svc
}

// citusWorkers reads the active primary workers from the coordinator's
// metadata.
func citusWorkers(ctx context.Context, conn *pgx.Conn) ([]citusNode, error) {
	rows, err := conn.Query(ctx, `SELECT nodename, nodeport FROM pg_dist_node WHERE isactive AND noderole = 'primary' AND groupid <> 0 ORDER BY nodeid`)
	if err != nil {
		return nil, err
	}
	nodes, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (citusNode, error) {
		var n citusNode
		return n, r.Scan(&n.host, &n.port)
	})
	if err == nil && len(nodes) == 0 {
		err = fmt.Errorf("the coordinator has no active workers")
	}
	return nodes, err
}

func (n citusNode) url(user, db string) string {
	return fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable", quote(n.host), n.port, quote(user), quote(db))
}

// citusCreate creates database name on the node url names, with the
// extensions the schema needs.
func citusCreate(ctx context.Context, url, name string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+" TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C.UTF-8'"); err != nil {
		return err
	}
	db, err := pgx.Connect(ctx, withDatabase(url, name))
	if err != nil {
		return err
	}
	defer db.Close(context.Background())
	_, err = db.Exec(ctx, `CREATE EXTENSION citus`)
	return err
}
