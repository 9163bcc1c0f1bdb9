package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/postgres"
	"yakor/postgres/pgtest"
)

func TestOpenUnreachable(t *testing.T) {
	_, err := postgres.Open(context.Background(), "host=/nonexistent-yakor-socket-dir user=x dbname=y connect_timeout=2", postgres.Options{}, pgtest.Logger(t))
	if yakor.ErrorCode(err) != yakor.EUNAVAILABLE || !strings.Contains(err.Error(), "cannot connect to PostgreSQL at /nonexistent-yakor-socket-dir") {
		t.Fatalf("err = %v", err)
	}
}

// TestMigrateTwice: applying the migrations again changes nothing and the
// tables exist with the tenant key first.
func TestMigrateTwice(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.New(t)
	if err := postgres.Migrate(ctx, pool, pgtest.Logger(t)); err != nil {
		t.Fatalf("second migrate: %v", err)
	}
	rows, err := pool.Query(ctx, `
SELECT c.relname, a.attname
FROM pg_index i
JOIN pg_class c ON c.oid = i.indrelid
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0]
WHERE i.indisprimary AND c.relnamespace = 'public'::regnamespace AND c.relname <> 'goose_db_version'
  AND c.relname NOT LIKE 'river\_%'`) // River's own tables: its jobs carry the tenant in their args
	if err != nil {
		t.Fatal(err)
	}
	type key struct{ Table, Column string }
	keys, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (key, error) {
		var k key
		err := r.Scan(&k.Table, &k.Column)
		return k, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) < 5 {
		t.Fatalf("only %d tables", len(keys))
	}
	for _, k := range keys {
		want := "tenant_id"
		switch k.Table {
		case "tenants":
			want = "id"
		case "embed_spaces", "research_runs":
			// The catalog of embedding models and the research job's log
			// (one run works every tenant): the service's, no tenant's data.
			want = "id"
		}
		if k.Column != want {
			t.Errorf("table %s: primary key starts with %s, want %s", k.Table, k.Column, want)
		}
	}
}
