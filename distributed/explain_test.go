package distributed_test

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"yakor/postgres"
)

// statements is a pgx tracer that keeps each distinct statement the
// service role sends, with the arguments of its first run.
type statements struct {
	mu   sync.Mutex
	on   bool
	seen map[string][]any
	sqls []string
}

func newStatements() *statements { return &statements{seen: map[string][]any{}} }

// start keeps the statements sent from now on.
func (s *statements) start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.on = true
}

// skipped are the statements of the transaction block that carries the
// tenant, not the service's own.
var skipped = regexp.MustCompile(`^(?i)\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SELECT yakor_set_tenant\(\$1\))`)

func (s *statements) keep(sql string, args []any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.on || skipped.MatchString(sql) {
		return
	}
	if _, ok := s.seen[sql]; !ok {
		s.seen[sql] = slices.Clone(args)
		s.sqls = append(s.sqls, sql)
	}
}

func (s *statements) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	s.keep(d.SQL, d.Args)
	return ctx
}
func (s *statements) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (s *statements) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}
func (s *statements) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	s.keep(d.SQL, d.Args)
}
func (s *statements) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// taskCount finds Citus's task counts in a plan.
var taskCount = regexp.MustCompile(`Task Count: (\d+)`)

// explainEach runs EXPLAIN on every statement kept, as the service role in
// ctx's tenant with the arguments it ran with, and fails the test for any
// whose Citus plan has more than one task. It returns how many statements
// Citus planned (routed) and how many it did not see as distributed (a
// function of Yakor's, whose own statements the multi-task guard checks;
// local tables).
func (s *statements) explainEach(t *testing.T, ctx context.Context, svc *postgres.DB) (routed, other int) {
	t.Helper()
	s.mu.Lock()
	s.on = false
	sqls := slices.Clone(s.sqls)
	s.mu.Unlock()
	for _, sql := range sqls {
		rows, err := svc.Query(ctx, "EXPLAIN "+sql, s.seen[sql]...)
		if err != nil {
			t.Errorf("EXPLAIN %s: %v", firstLine(sql), err)
			continue
		}
		plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Errorf("EXPLAIN %s: %v", firstLine(sql), err)
			continue
		}
		counts := taskCount.FindAllStringSubmatch(strings.Join(plan, "\n"), -1)
		if len(counts) == 0 {
			other++
			continue
		}
		routed++
		for _, c := range counts {
			if n, _ := strconv.Atoi(c[1]); n != 1 {
				t.Errorf("not one task (%s tasks): %s\n%s", c[1], firstLine(sql), strings.Join(plan, "\n"))
			}
		}
	}
	return routed, other
}

func firstLine(sql string) string {
	sql = strings.TrimSpace(sql)
	if i := strings.IndexByte(sql, '\n'); i > 0 {
		sql = sql[:i]
	}
	return sql[:min(len(sql), 100)]
}

// saw reports whether a statement holding part was traced.
func (s *statements) saw(part string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for sql := range s.seen {
		if strings.Contains(sql, part) {
			return true
		}
	}
	return false
}
