package pgtest

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"yakor/migrations"
	"yakor/postgres"
	"yakor/postgres/citus"
)

// NewCitusURL creates a fresh database on the Citus cluster whose
// coordinator TEST_CITUS_URL names (citus.CreateDatabase: on every node,
// the workers registered in it), migrated (so distributed: migration
// 00024), and returns the coordinator's URL of it; it is dropped at
// cleanup. A Citus database cannot be cloned from a template (its shards
// live on the workers), so each one is made and migrated afresh: a few
// seconds.
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
	name := "yakor_d_" + randomHex(6)
	if err := citus.CreateDatabase(ctx, base, name, migrations.Extensions()); err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := citus.DropDatabase(ctx, base, name); err != nil {
			tb.Errorf("pgtest: %v", err)
		}
	})
	url := withDatabase(base, name)
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
	return CitusService(tb, NewCitusURL(tb), params, nil)
}

// CitusService opens the owner's pool and the service role's DB on the
// Citus database url names (made by CitusDatabase); tracer, when not nil,
// sees every statement of the service role.
func CitusService(tb testing.TB, url string, params map[string]string, tracer pgx.QueryTracer) (*pgxpool.Pool, *postgres.DB) {
	tb.Helper()
	owner := open(tb, url, 4)
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		tb.Fatal(err)
	}
	svcURL := postgres.DSN(cfg.Host, int(cfg.Port), postgres.ServiceRole, cfg.Database)
	for k, v := range params {
		svcURL += " " + k + "=" + postgres.DSNValue(v)
	}
	svc, err := postgres.OpenService(context.Background(), url, svcURL, postgres.Options{MaxConns: 8, Tracer: tracer}, Logger(tb))
	if err != nil {
		tb.Fatalf("pgtest: open as the service role: %v", err)
	}
	tb.Cleanup(svc.Pool().Close)
	if !svc.Distributed() {
		tb.Fatalf("pgtest: %s has no citus extension", cfg.Database)
	}
	return owner, svc
}
