package app

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// serveMetrics serves /metrics on Config.MetricsAddr, when set: a listener
// of its own (a private network, a sidecar), so that scraping needs no API
// key and the main address does not serve them.
func (a *App) serveMetrics() error {
	if a.Config.MetricsAddr == "" {
		return nil
	}
	ln, err := net.Listen("tcp", a.Config.MetricsAddr)
	if err != nil {
		return fmt.Errorf("listen for metrics on %s: %w", a.Config.MetricsAddr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(a.Registry, promhttp.HandlerOpts{}))
	a.metrics = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(a.Log.Handler(), slog.LevelWarn)}
	a.metricsAddr = ln.Addr().String()
	go func() { _ = a.metrics.Serve(ln) }()
	a.Log.Info("metrics are served", "url", "http://"+ln.Addr().String()+"/metrics")
	return nil
}

// MetricsAddr is the address metrics are served on, when MetricsAddr is
// set and the app started ("" otherwise).
func (a *App) MetricsAddr() string { return a.metricsAddr }
