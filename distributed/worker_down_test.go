package distributed_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"yakor/account"
	"yakor/app"
	"yakor/app/apptest"
	"yakor/migrations"
	"yakor/postgres/citus"
	"yakor/postgres/pgtest"
)

// ownCluster starts a private Citus cluster (a coordinator, two workers)
// for a test that stops one of its nodes; it is stopped at cleanup.
func ownCluster(t *testing.T) *citus.Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	opts := citus.Options{Dir: pgtest.DataDir(t), Workers: 2, ShardCount: 4, Extensions: migrations.Extensions(),
		Settings: map[string]string{"fsync": "off", "synchronous_commit": "off", "max_connections": "200"}, Logger: pgtest.Logger(t)}
	c, err := citus.Start(ctx, opts)
	if err != nil {
		t.Fatalf("start a Citus cluster (scripts/setup.sh citus installs Citus): %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := citus.StopDir(ctx, opts.Dir); err != nil {
			t.Errorf("stop the cluster: %v", err)
		}
	})
	return c
}

// TestWorkerDownFailsItsTenantsOnly stops the worker of one tenant: its
// requests are answered 503 (try again), the other worker's tenant is
// answered as before, and once the worker is back its tenant is answered
// again without anything restarted.
func TestWorkerDownFailsItsTenantsOnly(t *testing.T) {
	c := ownCluster(t)
	owner, svc := pgtest.CitusService(t, pgtest.CitusDatabase(t, c.URL()), nil, nil)
	s := apptest.Start(t, apptest.Config(), app.WithDatabase(&app.Database{Owner: owner, Tenant: svc}))
	ws := workers(t, owner)
	var keys []string
	for _, w := range ws[:2] {
		sc := tenantOn(t, s, w)
		_, secret, err := s.Accounts.CreateKey(t.Context(), account.NewKey{TenantID: sc.TenantID, UserID: sc.UserID, Name: "down"})
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, secret)
	}
	ask := func(key, text string) int {
		body, _ := json.Marshal(map[string]any{"model": "yakor", "messages": []any{map[string]string{"role": "user", "content": text}}})
		return apptest.Call(t, s.URL, key, "POST", "/v1/chat/completions", string(body), nil).Status
	}
	for i, key := range keys {
		if code := ask(key, fmt.Sprintf("Hello from tenant %d.", i)); code != http.StatusOK {
			t.Fatalf("tenant %d before the stop: %d", i, code)
		}
	}
	host, port := c.WorkerHost(1)
	if (node{Host: host, Port: port}) != ws[0] {
		t.Fatalf("worker 1 is %s:%d, the first registered %v", host, port, ws[0])
	}
	if err := c.StopWorker(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	if code := ask(keys[0], "Are you there?"); code != http.StatusServiceUnavailable {
		t.Errorf("the stopped worker's tenant: %d, want 503", code)
	}
	if code := ask(keys[1], "Still here?"); code != http.StatusOK {
		t.Errorf("the other worker's tenant while one is down: %d, want 200", code)
	}
	if err := c.StartWorker(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	code := 0
	for time.Now().Before(deadline) {
		if code = ask(keys[0], "Back again?"); code == http.StatusOK {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if code != http.StatusOK {
		t.Errorf("the worker's tenant 30 s after the worker came back: %d", code)
	}
}
