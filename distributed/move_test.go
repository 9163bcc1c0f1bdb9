package distributed_test

import (
	"fmt"
	"log/slog"
	"testing"
	"time"

	"yakor"
	"yakor/app"
	"yakor/app/apptest"
	"yakor/history"
	"yakor/postgres/pgtest"
	"yakor/turn"
)

// TestTenantMovesUnderLoad moves a tenant to the other worker while its
// client sends turns: Citus isolates the tenant into shards of its own,
// then moves them (blocking the tenant's writes while the rows are
// copied). A turn that fails is sent again with its client id, as a client
// does, on 503 or 409. Every message is stored once, in the order sent, and the tenant's
// shards end on the other worker.
func TestTenantMovesUnderLoad(t *testing.T) {
	owner, svc := pgtest.NewCitusService(t, nil)
	logged := newWarnings()
	s := apptest.StartLogged(t, apptest.Config(), slog.New(logged), app.WithDatabase(&app.Database{Owner: owner, Tenant: svc}), app.WithInlineJobs())
	ws := workers(t, owner)
	sc := tenantOn(t, s, ws[0])
	th, err := s.History.CreateThread(sc.Context(t.Context()), sc, history.ThreadCreate{Title: "moving"})
	if err != nil {
		t.Fatal(err)
	}
	sc = sc.WithThread(th.ID)
	ctx := sc.Context(t.Context())

	const turns = 40
	done := make(chan error, 1)
	retries := 0
	go func() {
		for i := range turns {
			in := turn.Input{Content: fmt.Sprintf("Message number %d of the moving tenant.", i), ClientID: fmt.Sprintf("move-%d", i)}
			var err error
			for range 20 {
				if _, err = s.Engine.Send(ctx, sc, in, func(turn.Event) error { return nil }); err == nil {
					break
				}
				if code := yakor.ErrorCode(err); code != yakor.EUNAVAILABLE && code != yakor.ECONFLICT {
					done <- fmt.Errorf("turn %d: %w (%s: not one a client retries)", i, err, code)
					return
				}
				retries++
				time.Sleep(100 * time.Millisecond)
			}
			if err != nil {
				done <- fmt.Errorf("turn %d: %w", i, err)
				return
			}
		}
		done <- nil
	}()

	time.Sleep(300 * time.Millisecond) // some turns before the move
	var shard int64
	if err := owner.QueryRow(t.Context(), `SELECT isolate_tenant_to_new_shard('messages', $1::uuid, 'CASCADE', shard_transfer_mode => 'block_writes')`, sc.TenantID).Scan(&shard); err != nil {
		t.Fatalf("isolate the tenant: %v", err)
	}
	if _, err := owner.Exec(t.Context(), `SELECT citus_move_shard_placement($1, $2, $3, $4, $5, shard_transfer_mode => 'block_writes')`,
		shard, ws[0].Host, ws[0].Port, ws[1].Host, ws[1].Port); err != nil {
		t.Fatalf("move the tenant's shards: %v", err)
	}
	moved := time.Now()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	t.Logf("moved while turns went on; the last turn answered %v after the move; %d sends retried", time.Since(moved).Round(time.Millisecond), retries)
	if err := s.Inline.RunPending(t.Context()); err != nil {
		t.Fatalf("upkeep after the move: %v", err)
	}
	for _, table := range []string{"messages", "threads", "users", "turns"} {
		if got := placement(t, owner, table, sc.TenantID); got != ws[1] {
			t.Errorf("%s of the tenant on %v after the move, want %v", table, got, ws[1])
		}
	}
	rows, err := svc.Query(ctx, `SELECT content FROM messages WHERE tenant_id = $1 AND thread_id = $2 AND role = 'user' ORDER BY id`, sc.TenantID, sc.ThreadID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			t.Fatal(err)
		}
		got = append(got, c)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) != turns {
		t.Fatalf("%d user messages stored, want %d: %q", len(got), turns, got)
	}
	for i, c := range got {
		if want := fmt.Sprintf("Message number %d of the moving tenant.", i); c != want {
			t.Errorf("message %d is %q, want %q", i, c, want)
		}
	}
	logged.none(t)
}
