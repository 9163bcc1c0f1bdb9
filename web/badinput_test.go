package web_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"yakor/account"
	"yakor/app/apptest"
	"yakor/turn"
)

// metricsBody reads /metrics with key ("" for none).
func metricsBody(t *testing.T, url, key string) (int, string) {
	t.Helper()
	a := apptest.Call(t, url, key, "GET", "/metrics", "", nil)
	return a.Status, string(a.Body)
}

// TestMetricsBounded: requests with made-up methods and paths count under
// "other" and "unmatched", so they cannot grow the metrics.
func TestMetricsBounded(t *testing.T) {
	s := mustStack(t, nil, turn.Config{})
	for i := range 200 {
		req, _ := http.NewRequest(fmt.Sprintf("M%03d", i), s.URL+fmt.Sprintf("/x/%d", i), nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	_, body := metricsBody(t, s.URL, "")
	series := 0
	for line := range strings.Lines(body) {
		if strings.HasPrefix(line, "yakor_http_requests_total{") {
			series++
			if strings.Contains(line, `method="M`) || strings.Contains(line, "/x/") {
				t.Errorf("a made-up method or path became a label: %s", line)
			}
		}
	}
	if series == 0 || series > 10 {
		t.Errorf("%d request series after 200 made-up requests", series)
	}
	if !strings.Contains(body, `route="unmatched"`) || !strings.Contains(body, `method="other"`) {
		t.Errorf("no unmatched/other series:\n%s", body)
	}
}

// TestMetricsNeedAdmin: once keys exist, /metrics needs an admin key; with
// --metrics-addr they are served there, without a key, and not on the main
// address.
func TestMetricsNeedAdmin(t *testing.T) {
	s := newStack(t, stackOptions{keys: true})
	_, user := mustKey(t, s, account.NewKey{Tenant: "acme", User: "ann"})
	_, admin := mustKey(t, s, account.NewKey{Tenant: "acme", User: "ops", Role: account.RoleAdmin})
	time.Sleep(2100 * time.Millisecond) // the server checks for keys every 2 s
	for key, want := range map[string]int{"": 401, user: 403, admin: 200} {
		if code, body := metricsBody(t, s.URL, key); code != want || want == 200 && !strings.Contains(body, "# HELP") {
			t.Errorf("/metrics with key %.6q: %d, want %d", key, code, want)
		}
	}

	cfg := apptest.Config()
	cfg.MetricsAddr = "127.0.0.1:0"
	other := apptest.New(t, cfg)
	if code, body := metricsBody(t, other.URL, ""); strings.Contains(body, "# HELP") {
		t.Errorf("/metrics on the main address with --metrics-addr: %d, the metrics", code)
	}
	resp, err := http.Get("http://" + other.App.MetricsAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "yakor_http_requests_total") {
		t.Errorf("metrics on --metrics-addr: %d", resp.StatusCode)
	}
}
