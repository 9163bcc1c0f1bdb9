// Package historytest makes threads for other packages' tests: a thread of
// a user holding the messages a test needs, written through history.Store
// as a conversation writes them.
package historytest

import (
	"context"
	"testing"

	"yakor"
	"yakor/history"
)

// Thread makes a thread in scope (its tenant and user) holding contents as
// the user's and the assistant's messages in turn, oldest first, and
// returns the thread's scope and the messages' ids.
func Thread(tb testing.TB, db history.DB, scope yakor.Scope, contents ...string) (yakor.Scope, []int64) {
	tb.Helper()
	ctx := context.Background()
	hist := history.NewStore(db)
	th, err := hist.CreateThread(ctx, scope, history.ThreadCreate{})
	if err != nil {
		tb.Fatal(err)
	}
	scope = scope.WithThread(th.ID)
	var ids []int64
	for i, c := range contents {
		role := history.RoleUser
		if i%2 == 1 {
			role = history.RoleAssistant
		}
		m, _, err := hist.Append(ctx, scope, history.NewMessage{Role: role, Content: c})
		if err != nil {
			tb.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	return scope, ids
}
