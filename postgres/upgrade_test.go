package postgres_test

import (
	"context"
	"testing"

	"yakor/account"
	"yakor/history"
	"yakor/postgres/pgtest"
)

// TestUpkeepCursorsSeeded: threads that existed before the upkeep job
// (migration 00019) start their upkeep after their newest message, so the
// first turn after the upgrade does not read the whole thread again; a
// thread with no messages gets no cursor.
func TestUpkeepCursorsSeeded(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	p := pgtest.Migrations(t, pool)
	if _, err := p.DownTo(ctx, 18); err != nil {
		t.Fatal(err)
	}
	scope, err := account.NewStore(pool).CreateTenantUser(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	hist := history.NewStore(pool)
	var last int64
	for i := range 2 {
		th, err := hist.CreateThread(ctx, scope, history.ThreadCreate{Title: "t"})
		if err != nil {
			t.Fatal(err)
		}
		for j := range 3 * i {
			m, _, err := hist.Append(ctx, scope.WithThread(th.ID), history.NewMessage{Role: history.RoleUser, Content: "message " + string(rune('a'+j))})
			if err != nil {
				t.Fatal(err)
			}
			last = m.ID
		}
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	var through int64
	if err := pool.QueryRow(ctx, `SELECT count(*), coalesce(max(through_id), 0) FROM upkeep_cursors WHERE tenant_id = $1`, scope.TenantID).Scan(&n, &through); err != nil {
		t.Fatal(err)
	}
	if n != 1 || through != last {
		t.Fatalf("%d cursors through %d, want one (the thread with messages) through %d", n, through, last)
	}
}
