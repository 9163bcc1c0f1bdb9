package postgres_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"yakor"
	"yakor/account"
	"yakor/history"
	"yakor/postgres"
	"yakor/postgres/pgtest"
)

// TestRowLevelSecurityCoversEveryTenantTable: every table with a tenant_id
// column (and tenants itself) has RLS on and the tenant policy, and the
// service role can neither bypass it nor own a table.
func TestRowLevelSecurityCoversEveryTenantTable(t *testing.T) {
	ctx := context.Background()
	owner, _ := pgtest.NewService(t)
	rows, err := owner.Query(ctx, `
SELECT c.relname, c.relrowsecurity,
       EXISTS (SELECT 1 FROM pg_policies p WHERE p.schemaname = 'public' AND p.tablename = c.relname AND p.policyname = 'tenant_isolation')
FROM pg_class c
WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
  AND (c.relname = 'tenants' OR EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped))
ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	type table struct {
		Name        string
		RLS, Policy bool
	}
	tables, err := pgx.CollectRows(rows, pgx.RowToStructByPos[table])
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) < 18 {
		t.Fatalf("only %d tenant-keyed tables: %v", len(tables), tables)
	}
	for _, tb := range tables {
		if !tb.RLS || !tb.Policy {
			t.Errorf("table %s: row-level security %v, tenant policy %v", tb.Name, tb.RLS, tb.Policy)
		}
	}
	var super, bypass bool
	var owned int
	err = owner.QueryRow(ctx, `SELECT rolsuper, rolbypassrls, (SELECT count(*) FROM pg_class WHERE relowner = r.oid)
FROM pg_roles r WHERE rolname = $1`, postgres.ServiceRole).Scan(&super, &bypass, &owned)
	if err != nil {
		t.Fatal(err)
	}
	if super || bypass || owned != 0 {
		t.Fatalf("%s: superuser %v, bypasses RLS %v, owns %d relations", postgres.ServiceRole, super, bypass, owned)
	}
	var invoker bool
	if err := owner.QueryRow(ctx, `SELECT coalesce('security_invoker=true' = ANY (reloptions), false) FROM pg_class WHERE relname = 'experience_fails'`).Scan(&invoker); err != nil || !invoker {
		t.Fatalf("view experience_fails reads with its owner's rights (invoker %v, %v)", invoker, err)
	}
}

// TestUnscopedQueryFindsNoOtherTenant: a query that forgets its tenant
// filter, run as the service role, sees only the tenant its context names,
// and nothing when it names none; writing a row into another tenant fails;
// the tenant never outlives its statement on a pooled connection.
func TestUnscopedQueryFindsNoOtherTenant(t *testing.T) {
	ctx := context.Background()
	owner, svc := pgtest.NewService(t)
	a, b := twoTenants(t, owner)

	// The forgotten filter, through every path of DB.
	unscoped := `SELECT DISTINCT tenant_id::text FROM messages`
	tenantsIn := func(q pgx.Rows, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		ids, err := pgx.CollectRows(q, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	actA := a.Context(ctx)
	if got := tenantsIn(svc.Query(actA, unscoped)); len(got) != 1 || got[0] != a.TenantID {
		t.Fatalf("as tenant A, unscoped query sees tenants %v, want only %s", got, a.TenantID)
	}
	if got := tenantsIn(svc.Query(ctx, unscoped)); len(got) != 0 {
		t.Fatalf("with no tenant, unscoped query sees tenants %v, want none", got)
	}
	// Rows read to their end give their connection back unclosed, as a
	// pool's do.
	rows, err := svc.Query(actA, `SELECT id FROM messages`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if held := svc.Pool().Stat().AcquiredConns(); held != 0 {
		t.Fatalf("%d connections still held after reading the rows to their end", held)
	}
	var n int
	if err := svc.QueryRow(actA, `SELECT count(*) FROM messages`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("QueryRow as A: %d messages, %v; want 2", n, err)
	}
	br := svc.SendBatch(actA, func() *pgx.Batch {
		b := &pgx.Batch{}
		b.Queue(`SELECT count(*) FROM threads`)
		b.Queue(`SELECT count(*) FROM users`)
		return b
	}())
	for _, what := range []string{"threads", "users"} {
		if err := br.QueryRow().Scan(&n); err != nil || n != 1 {
			t.Fatalf("batch as A: %d %s, %v; want 1", n, what, err)
		}
	}
	if err := br.Close(); err != nil {
		t.Fatal(err)
	}
	tx, err := svc.Begin(actA)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(actA, `SELECT count(*) FROM tenants`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("transaction as A: %d tenants, %v; want 1", n, err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}

	// Another tenant's rows can neither be written nor changed.
	_, err = svc.Exec(actA, `INSERT INTO threads (tenant_id, id, user_id, title) VALUES ($1, gen_random_uuid(), $2, 'planted')`, b.TenantID, b.UserID)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "42501" {
		t.Fatalf("inserting into tenant B as A: %v, want a row-level security violation", err)
	}
	tag, err := svc.Exec(actA, `UPDATE messages SET content = 'overwritten'`)
	if err != nil || tag.RowsAffected() != 2 {
		t.Fatalf("unscoped update as A touched %d rows (%v), want A's 2", tag.RowsAffected(), err)
	}
	if err := owner.QueryRow(ctx, `SELECT count(*) FROM messages WHERE tenant_id = $1 AND content = 'overwritten'`, b.TenantID).Scan(&n); err != nil || n != 0 {
		t.Fatalf("tenant B has %d overwritten messages (%v)", n, err)
	}
	// The same connections, used again without a tenant, see nothing.
	for range 16 {
		if err := svc.Pool().QueryRow(ctx, `SELECT count(*) FROM messages`).Scan(&n); err != nil || n != 0 {
			t.Fatalf("pooled connection after tenant A's statements: %d messages (%v), want 0", n, err)
		}
	}
	// The service logs in as its role, which cannot become another.
	var session string
	if err := svc.QueryRow(ctx, `SELECT session_user`).Scan(&session); err != nil || session != postgres.ServiceRole {
		t.Fatalf("session user %q (%v), want %s", session, err, postgres.ServiceRole)
	}
	if _, err := svc.Exec(actA, `SET ROLE postgres`); err == nil {
		t.Fatal("the service role could SET ROLE postgres")
	}
}

// twoTenants creates tenants alpha and beta, each with a thread of two
// messages, and returns their scopes (with the thread).
func twoTenants(t *testing.T, owner *pgxpool.Pool) (a, b yakor.Scope) {
	t.Helper()
	ctx := context.Background()
	accounts := account.NewStore(owner)
	ownerHist := history.NewStore(owner)
	var scopes []yakor.Scope
	for _, name := range []string{"alpha", "beta"} {
		sc, err := accounts.CreateTenantUser(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		th, err := ownerHist.CreateThread(ctx, sc, history.ThreadCreate{Title: name})
		if err != nil {
			t.Fatal(err)
		}
		sc = sc.WithThread(th.ID)
		for _, text := range []string{"the price list of " + name, "and its delivery terms"} {
			if _, _, err := ownerHist.Append(ctx, sc, history.NewMessage{Role: "user", Content: text}); err != nil {
				t.Fatal(err)
			}
		}
		scopes = append(scopes, sc)
	}
	return scopes[0], scopes[1]
}
