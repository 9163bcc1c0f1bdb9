package history_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"yakor"
	"yakor/account"
	"yakor/history"
	"yakor/postgres/pgtest"
)

// TestThreadReadsUseThreadIndex: a tenant whose big thread holds most of
// its messages, between older and newer messages of its other threads.
// Every read of a few of the thread's messages in id order goes through
// messages_by_thread, not the primary key, which would walk through the
// other threads' messages on its way (the window of a 1,000,000-message
// thread took 46 ms a page so).
func TestThreadReadsUseThreadIndex(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.New(t)
	scope, err := account.NewStore(pool).CreateTenantUser(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	s := history.NewStore(pool)
	threads := []yakor.Scope{mustThread(t, s, scope), mustThread(t, s, scope), mustThread(t, s, scope)}
	for i, n := range []int{5_000, 40_000, 5_000} { // older, big, newer
		msgs := make([]history.NewMessage, n)
		for j := range msgs {
			role := history.RoleUser
			if j%2 == 1 {
				role = history.RoleAssistant
			}
			msgs[j] = history.NewMessage{Role: role, Content: fmt.Sprintf("message %d of thread %d", j, i)}
		}
		if _, err := s.Import(ctx, threads[i], msgs); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := pool.Exec(ctx, `ANALYZE messages`); err != nil {
		t.Fatal(err)
	}
	big := threads[1]
	for name, r := range history.ThreadReads {
		args := append([]any{big.TenantID, big.UserID, big.ThreadID}, r.Args...)
		rows, err := pool.Query(ctx, "EXPLAIN "+r.SQL, args...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var plan strings.Builder
		for rows.Next() {
			var line string
			_ = rows.Scan(&line)
			plan.WriteString(line + "\n")
		}
		rows.Close()
		if strings.Contains(plan.String(), "messages_pkey") || !strings.Contains(plan.String(), "messages_by_thread") {
			t.Errorf("%s does not read messages_by_thread alone:\n%s", name, plan.String())
		}
	}
}
