package web

import (
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
)

type httpMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newHTTPMetrics(reg prometheus.Registerer) *httpMetrics {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "yakor_http_requests_total", Help: "HTTP requests by route, method and status.",
		}, []string{"route", "method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "yakor_http_request_seconds", Help: "HTTP request duration by route.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 16),
		}, []string{"route", "method"}),
	}
	if reg != nil {
		reg.MustRegister(m.requests, m.duration)
	}
	return m
}

// observe logs each request and counts it.
func (s *Server) observe(m *httpMetrics) gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		route := c.FullPath()
		if route == "" {
			route = "unmatched"
		}
		status := c.Writer.Status()
		method := methodLabel(c.Request.Method)
		m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
		m.duration.WithLabelValues(route, method).Observe(time.Since(start).Seconds())
		if route != "/metrics" && route != "/healthz" && route != "/readyz" {
			s.log.DebugContext(c.Request.Context(), "http", "method", c.Request.Method, "path", c.Request.URL.Path, "status", status, "took", time.Since(start))
		}
	}
}

// methodLabel is the method as a metric label: one of the methods HTTP
// clients use, or "other", so that requests with made-up methods cannot
// grow the metrics without bound (the route is its template, or
// "unmatched", for the same reason).
func methodLabel(m string) string {
	switch m {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS":
		return m
	}
	return "other"
}
