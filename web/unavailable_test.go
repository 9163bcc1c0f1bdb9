package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
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
	srv.ServeHTTP(rec, httptest.NewRequest("POST", "/api/v1/threads/x/messages", strings.NewReader(`{"content":"hi","client_id":"a"}`)))
	var body struct{ Error string }
	_ = json.Unmarshal(rec.Body.Bytes(), &body)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" || body.Error != "the database is unavailable; try again shortly" {
		t.Fatalf("%d, Retry-After %q, %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
}
