package turn

import "github.com/prometheus/client_golang/prometheus"

// Metrics counts turns for /metrics.
type Metrics struct {
	turns       *prometheus.CounterVec
	memory      prometheus.Histogram
	model       prometheus.Histogram
	promptChars prometheus.Histogram
}

// NewMetrics registers the turn metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		turns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "yakor_turns_total", Help: "Turns by outcome (ok, failed).",
		}, []string{"status"}),
		memory: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "yakor_turn_memory_seconds", Help: "Time a turn spent outside the model: storing, loading, assembling.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14),
		}),
		model: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "yakor_turn_model_seconds", Help: "Time a turn spent in the chat model.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 14),
		}),
		promptChars: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "yakor_prompt_chars", Help: "Prompt size in characters.",
			Buckets: prometheus.ExponentialBuckets(500, 2, 10),
		}),
	}
	reg.MustRegister(m.turns, m.memory, m.model, m.promptChars)
	return m
}

func (m *Metrics) observe(tr Trace) {
	if m == nil {
		return
	}
	m.turns.WithLabelValues(tr.Status).Inc()
	if tr.Status != StatusOK {
		return
	}
	m.memory.Observe(tr.Timings["memory"] / 1000)
	m.model.Observe(tr.Timings["model"] / 1000)
	m.promptChars.Observe(float64(tr.PromptChars))
}
