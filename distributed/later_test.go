package distributed_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"yakor/app"
	"yakor/app/apptest"
	"yakor/history"
	"yakor/migrations"
	"yakor/postgres"
	"yakor/postgres/citus"
	"yakor/postgres/pgtest"
	"yakor/search"
	"yakor/turn"
)

// TestDistributeLater is the way of a deployment that began on one
// PostgreSQL: its database, migrated and in use without Citus, gets the
// extension and the workers, and SELECT yakor_distribute() moves its rows
// to them; the conversation goes on, routed, and finds what was said
// before.
func TestDistributeLater(t *testing.T) {
	base := pgtest.CitusURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	ws, err := citus.Workers(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	cfg := admin.Config()
	coord := citus.Node{Host: cfg.Host, Port: int(cfg.Port)}
	name := "yakor_later_" + strings.ReplaceAll(time.Now().Format("150405.000"), ".", "")
	for i, n := range append([]citus.Node{coord}, ws...) {
		exts := migrations.Extensions()
		if i > 0 {
			exts = append([]string{"citus"}, exts...) // a worker's, before it is added
		}
		run(t, n.URL(cfg.User, "postgres"), "CREATE DATABASE "+name)
		t.Cleanup(func() { run(t, n.URL(cfg.User, "postgres"), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") })
		for _, e := range exts {
			run(t, n.URL(cfg.User, name), "CREATE EXTENSION "+e)
		}
	}
	url := coord.URL(cfg.User, name)

	// One PostgreSQL: migrated without Citus, a conversation held.
	owner, err := postgres.Open(ctx, url, postgres.Options{MaxConns: 4}, pgtest.Logger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(owner.Close)
	if err := postgres.Migrate(ctx, owner, pgtest.Logger(t)); err != nil {
		t.Fatal(err)
	}
	// One PostgreSQL reads the words indexes with generic plans (00026).
	wantPlanMode(t, owner, "force_generic_plan")
	svc, err := postgres.OpenService(ctx, url, "", postgres.Options{MaxConns: 4}, pgtest.Logger(t))
	if err != nil || svc.Distributed() {
		t.Fatalf("the service on one node: %v, distributed %v", err, svc != nil && svc.Distributed())
	}
	s := apptest.Start(t, apptest.Config(), app.WithDatabase(&app.Database{Owner: owner, Tenant: svc}), app.WithInlineJobs())
	th, err := s.History.CreateThread(s.Local.Context(ctx), s.Local, history.ThreadCreate{Title: "before"})
	if err != nil {
		t.Fatal(err)
	}
	sc := s.Local.WithThread(th.ID)
	if _, err := s.Engine.Send(sc.Context(ctx), sc, turn.Input{Content: "The walnut board costs 5150 a sheet."}, func(turn.Event) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := s.Inline.RunPending(ctx); err != nil {
		t.Fatal(err)
	}
	svc.Pool().Close()

	// Citus added, the tables distributed: the rows move to the workers.
	run(t, url, "CREATE EXTENSION citus")
	if _, err := owner.Exec(ctx, `SELECT citus_set_coordinator_host($1, $2)`, coord.Host, coord.Port); err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if _, err := owner.Exec(ctx, `SELECT citus_add_node($1, $2)`, w.Host, w.Port); err != nil {
			t.Fatal(err)
		}
	}
	var done bool
	if err := owner.QueryRow(ctx, `SELECT yakor_distribute()`).Scan(&done); err != nil || !done {
		t.Fatalf("yakor_distribute: %v, %v", done, err)
	}
	// Citus routes the words indexes' statements by the tenant's value,
	// which only a custom plan shows it.
	wantPlanMode(t, owner, "force_custom_plan")
	var onWorkers int
	if err := owner.QueryRow(ctx, `SELECT count(*) FROM citus_shards WHERE table_name = 'messages'::regclass AND shard_size > 8192 AND nodename <> $1`, coord.Host).Scan(&onWorkers); err != nil || onWorkers == 0 {
		t.Fatalf("messages' shards holding rows on the workers: %d, %v", onWorkers, err)
	}

	// The service, distributed now and held to one shard a statement.
	_, dsvc := pgtest.CitusService(t, url, noFanOut, nil)
	s2 := apptest.Start(t, apptest.Config(), app.WithDatabase(&app.Database{Owner: owner, Tenant: dsvc}), app.WithInlineJobs())
	if _, err := s2.Engine.Send(sc.Context(ctx), sc, turn.Input{Content: "And the oak board?"}, func(turn.Event) error { return nil }); err != nil {
		t.Fatal(err)
	}
	res, err := s2.Searcher.Search(sc.Context(ctx), sc, "walnut board", search.Options{})
	if err != nil || len(res.Hits) == 0 || !strings.Contains(res.Hits[0].Content, "5150") {
		t.Fatalf("the search after distributing: %v, %+v", err, res.Hits)
	}
}

// wantPlanMode fails unless both word-index functions that read as the
// tables' owner are set to plan_cache_mode mode.
func wantPlanMode(t *testing.T, owner *pgxpool.Pool, mode string) {
	t.Helper()
	var n int
	err := owner.QueryRow(context.Background(), `SELECT count(*) FROM pg_proc
WHERE proname IN ('yakor_thread_word_matches_unchecked', 'yakor_experience_words_unchecked')
  AND 'plan_cache_mode=' || $1 = ANY (proconfig)`, mode).Scan(&n)
	if err != nil || n != 2 {
		t.Fatalf("word-index functions with plan_cache_mode %s: %d of 2, %v", mode, n, err)
	}
}

// run runs sql on url.
func run(t *testing.T, url, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
