package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"yakor"
	"yakor/turn"
	"yakor/web"
)

// downTurns fails every turn as the engine does while the database is away.
type downTurns struct{ web.Turns }

func (downTurns) Send(context.Context, yakor.Scope, turn.Input, func(turn.Event) error) (turn.Outcome, error) {
	return turn.Outcome{}, fmt.Errorf("load window: %w: dial unix: connection refused",
		yakor.Errorf(yakor.EUNAVAILABLE, "the database is unavailable; try again shortly"))
}

// TestDatabaseUnavailable: a turn failing because the database is away is
// 503 with Retry-After and the reason in words, not an internal error.
func TestDatabaseUnavailable(t *testing.T) {
	reg := prometheus.NewRegistry()
	srv := web.NewServer(web.Deps{Log: slog.New(slog.DiscardHandler), Turns: downTurns{}, Gatherer: reg, Registerer: reg,
		LocalScope: yakor.Scope{TenantID: "t", UserID: "u"}})
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "http://localhost:8080/api/v1/threads/x/messages", strings.NewReader(`{"content":"hi","client_id":"a"}`))
	req.Header.Set("Content-Type", "application/json")
	// As a listener would: the address the request came in on.
	req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}))
	srv.ServeHTTP(rec, req)
	var body struct{ Error string }
	_ = json.Unmarshal(rec.Body.Bytes(), &body)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" || body.Error != "the database is unavailable; try again shortly" {
		t.Fatalf("%d, Retry-After %q, %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
}
