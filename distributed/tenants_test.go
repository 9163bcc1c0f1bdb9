package distributed_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"yakor"
	"yakor/account"
	"yakor/app"
	"yakor/app/apptest"
	"yakor/history"
	"yakor/postgres"
	"yakor/postgres/citus"
	"yakor/postgres/pgtest"
	"yakor/search"
	"yakor/turn"
)

// node is a Citus node as the coordinator's metadata names it.
type node = citus.Node

// workers returns the cluster's workers.
func workers(t *testing.T, owner *pgxpool.Pool) []node {
	t.Helper()
	conn, err := owner.Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	ws, err := citus.Workers(t.Context(), conn.Conn())
	if err != nil || len(ws) < 2 {
		t.Fatalf("workers: %v, %v (the suite needs two)", ws, err)
	}
	return ws
}

// placement returns the worker that holds tenant's shard of table.
func placement(t *testing.T, owner *pgxpool.Pool, table, tenant string) node {
	t.Helper()
	var n node
	if err := owner.QueryRow(t.Context(), `SELECT nodename, nodeport FROM citus_shards
WHERE table_name = $1::regclass AND shardid = get_shard_id_for_distribution_column($1::regclass, $2::uuid)`, table, tenant).Scan(&n.Host, &n.Port); err != nil {
		t.Fatalf("placement of %s in %s: %v", tenant, table, err)
	}
	return n
}

// tenantOn creates tenants until one's shard is on w, and returns it.
func tenantOn(t *testing.T, s *apptest.Server, w node) yakor.Scope {
	t.Helper()
	for range 64 {
		sc, err := s.Accounts.CreateTenantUser(t.Context(), "tenant on "+w.Host)
		if err != nil {
			t.Fatal(err)
		}
		if placement(t, s.DB.Owner, "messages", sc.TenantID) == w {
			return sc
		}
	}
	t.Fatalf("no tenant of 64 placed on %v", w)
	return yakor.Scope{}
}

// TestTenantsOnTwoWorkersStayApart: two tenants whose shards are on
// different workers each hold a conversation; neither's search, window or
// facts name the other's, and row-level security holds on the workers
// themselves: the service role, naming one tenant, reads the shards of
// every worker directly and sees that tenant's rows alone, and naming none
// sees none.
func TestTenantsOnTwoWorkersStayApart(t *testing.T) {
	owner, svc := pgtest.NewCitusService(t, nil)
	logged := newWarnings()
	s := apptest.StartLogged(t, apptest.Config(), slog.New(logged), app.WithDatabase(&app.Database{Owner: owner, Tenant: svc}), app.WithInlineJobs())
	ws := workers(t, owner)
	secrets := []string{"7731", "4402"}
	var scopes []yakor.Scope
	for i, w := range ws[:2] {
		sc := tenantOn(t, s, w)
		th, err := s.History.CreateThread(sc.Context(t.Context()), sc, history.ThreadCreate{Title: "codes"})
		if err != nil {
			t.Fatal(err)
		}
		sc = sc.WithThread(th.ID)
		ctx := sc.Context(t.Context())
		for _, text := range []string{"My name is Tenant" + secrets[i] + ".", "The secret code of the workshop is " + secrets[i] + ".", "What is the secret code?"} {
			if _, err := s.Engine.Send(ctx, sc, turn.Input{Content: text}, func(turn.Event) error { return nil }); err != nil {
				t.Fatal(err)
			}
			if err := s.Inline.RunPending(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		scopes = append(scopes, sc)
	}
	for i, sc := range scopes {
		ctx := sc.Context(t.Context())
		res, err := s.Searcher.Search(ctx, sc, "secret code workshop", search.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var found []string
		for _, h := range res.Hits {
			found = append(found, h.Content)
		}
		if all := strings.Join(found, "\n"); !strings.Contains(all, secrets[i]) || strings.Contains(all, secrets[1-i]) {
			t.Errorf("tenant %d's search found %q", i, all)
		}
		var tenants []string
		rows, err := svc.Query(ctx, `SELECT DISTINCT tenant_id::text FROM messages`)
		if err == nil {
			tenants, err = pgx.CollectRows(rows, pgx.RowTo[string])
		}
		if err != nil || !slices.Equal(tenants, []string{sc.TenantID}) {
			t.Errorf("tenant %d, messages of every shard through the coordinator: tenants %v, %v", i, tenants, err)
		}
		seen := map[string]int{}
		for _, w := range ws {
			for tenant, n := range shardRows(t, owner, w, sc.TenantID) {
				seen[tenant] += n
			}
		}
		if len(seen) != 1 || seen[sc.TenantID] == 0 {
			t.Errorf("tenant %d, the shards read on every worker: rows by tenant %v, want its own only", i, seen)
		}
	}
	for _, w := range ws {
		if seen := shardRows(t, owner, w, ""); len(seen) != 0 {
			t.Errorf("no tenant named, the shards on %s: %v", w.Host, seen)
		}
	}
	logged.none(t)
}

// shardRows reads every shard of messages placed on w directly on w, as
// the service role in a transaction naming tenant ("" names none), and
// counts the rows it sees by tenant.
func shardRows(t *testing.T, owner *pgxpool.Pool, w node, tenant string) map[string]int {
	t.Helper()
	rows, err := owner.Query(t.Context(), `SELECT shard_name FROM citus_shards WHERE table_name = 'messages'::regclass AND nodename = $1 AND nodeport = $2`, w.Host, w.Port)
	if err != nil {
		t.Fatal(err)
	}
	shards, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(shards) == 0 {
		t.Fatalf("shards on %v: %v, %v", w, shards, err)
	}
	ctx := context.Background()
	url := w.URL(postgres.ServiceRole, owner.Config().ConnConfig.Database)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect to %v as the service role: %v", w, err)
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	if _, err := tx.Exec(ctx, `SELECT set_config('yakor.tenant', $1, true)`, tenant); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, shard := range shards {
		rows, err := tx.Query(ctx, `SELECT tenant_id::text, count(*) FROM `+pgx.Identifier{shard}.Sanitize()+` GROUP BY 1`)
		if err != nil {
			t.Fatalf("read %s on %v: %v", shard, w, err)
		}
		for rows.Next() {
			var id string
			var n int
			if err := rows.Scan(&id, &n); err != nil {
				t.Fatal(err)
			}
			seen[id] += n
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return seen
}

// TestTenantReachesWorkersWithoutServerSetting: a managed Citus may not
// let its user set citus.propagate_set_commands server-wide;
// yakor_set_tenant sets it for its own transaction, so the tenant still
// reaches the workers' shard queries.
func TestTenantReachesWorkersWithoutServerSetting(t *testing.T) {
	owner, svc := pgtest.NewCitusService(t, map[string]string{"citus.propagate_set_commands": "none"})
	sc, err := account.NewStore(owner).CreateTenantUser(t.Context(), "managed")
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := svc.QueryRow(sc.Context(t.Context()), `SELECT count(*) FROM users WHERE tenant_id = $1`, sc.TenantID).Scan(&n); err != nil || n != 1 {
		t.Fatalf("the tenant's users seen through the coordinator: %d, %v (want 1)", n, err)
	}
}
