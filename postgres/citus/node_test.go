package citus_test

import (
	"context"
	"testing"
	"time"
)

// TestSetLocalReachesWorkers: a row-level security policy on a distributed
// table reads the tenant from SET LOCAL yakor.tenant, and the nodes'
// citus.propagate_set_commands = 'local' sends it on to every worker's shard
// queries: a query over all shards, as a role the policy holds, sees one
// tenant's rows.
func TestSetLocalReachesWorkers(t *testing.T) {
	t.Parallel()
	c := mustStart(t, testOptions(t))
	coord := connect(t, c.URL())
	distribute(t, coord)
	exec(t, coord, `CREATE ROLE app LOGIN`)
	exec(t, coord, `GRANT SELECT ON notes TO app`)
	exec(t, coord, `ALTER TABLE notes ENABLE ROW LEVEL SECURITY`)
	exec(t, coord, `CREATE POLICY tenant ON notes USING (tenant_id = current_setting('yakor.tenant')::bigint)`)

	app := connect(t, c.URL()+" user=app")
	ctx := context.Background()
	tx, err := app.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SET LOCAL yakor.tenant = '3'`); err != nil {
		t.Fatal(err)
	}
	var n, tenant int
	if err := tx.QueryRow(ctx, `SELECT count(*), min(tenant_id) FROM notes`).Scan(&n, &tenant); err != nil {
		t.Fatalf("a query over every shard with SET LOCAL yakor.tenant: %v", err)
	}
	if n != 1 || tenant != 3 {
		t.Errorf("the policy let through %d rows (lowest tenant %d), want tenant 3's one", n, tenant)
	}
}

// TestStopWorker: with a worker down, its tenants' queries fail and the
// other worker's tenants are served; started again, it serves its tenants.
func TestStopWorker(t *testing.T) {
	t.Parallel()
	c := mustStart(t, testOptions(t))
	coord := connect(t, c.URL())
	distribute(t, coord)
	host2, _ := c.WorkerHost(2)
	on2 := -1
	on1 := -1
	for tenant := 1; tenant <= 8; tenant++ {
		var host string
		const q = `SELECT nodename FROM pg_dist_shard_placement WHERE shardid = get_shard_id_for_distribution_column('notes', $1::bigint)`
		if err := coord.QueryRow(context.Background(), q, tenant).Scan(&host); err != nil {
			t.Fatal(err)
		}
		if host == host2 {
			on2 = tenant
		} else {
			on1 = tenant
		}
	}
	if on1 < 0 || on2 < 0 {
		t.Fatalf("tenants 1..8 are not on both workers (worker 1: %d, worker 2: %d)", on1, on2)
	}
	const q = `SELECT count(*) FROM notes WHERE tenant_id = $1`
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.StopWorker(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, coord, q, on1); n != 1 {
		t.Errorf("with worker 2 down, tenant %d on worker 1 has %d rows, want 1", on1, n)
	}
	var n int
	if err := coord.QueryRow(ctx, q, on2).Scan(&n); err == nil {
		t.Errorf("with worker 2 down, tenant %d on it answered %d rows", on2, n)
	}
	if err := c.StartWorker(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, coord, q, on2); n != 1 {
		t.Errorf("worker 2 started again: tenant %d has %d rows, want 1", on2, n)
	}
}
