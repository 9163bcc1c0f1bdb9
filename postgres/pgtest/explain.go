package pgtest

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"yakor/postgres"
)

// ExplainNested runs fn in a transaction of the service role in tenant,
// on a new connection of pool (the owner's), with auto_explain sending the
// plan of every statement, those inside functions too, to the client, and
// returns the plans: what a query costs under row-level security, as the
// service runs it. The test server must let the owner load auto_explain
// (a superuser, as make test's is).
func ExplainNested(tb testing.TB, pool *pgxpool.Pool, tenant string, fn func(conn *pgx.Conn) error) string {
	tb.Helper()
	ctx := context.Background()
	var plans strings.Builder
	cc := pool.Config().ConnConfig.Copy()
	cc.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { plans.WriteString(n.Message + "\n") }
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{`LOAD 'auto_explain'`, `SET auto_explain.log_min_duration = 0`, `SET auto_explain.log_nested_statements = on`,
		`SET client_min_messages = log`, `SET ROLE ` + postgres.ServiceRole, `BEGIN`} {
		if _, err := conn.Exec(ctx, q); err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := conn.Exec(ctx, `SELECT set_config('`+postgres.TenantSetting+`', $1, true)`, tenant); err != nil {
		tb.Fatal(err)
	}
	if err := fn(conn); err != nil {
		tb.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `COMMIT`); err != nil {
		tb.Fatal(err)
	}
	return plans.String()
}
