package mnemos

import (
	"cmp"
	"log/slog"
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// Config tunes the store.
type Config struct {
	// MergeThreshold is the cosine similarity at or above which a new
	// experience is a near-duplicate of a stored one and merges into it;
	// default 0.9.
	MergeThreshold float64
	// TopicThreshold is the similarity of two research topics' wording at or
	// above which they are one topic; default 0.5.
	TopicThreshold float64
	// Recall tunes the few-shot block of each prompt.
	Recall RecallConfig
}

// DefaultConfig is the store's configuration unless told otherwise; its
// numbers are the settings' defaults.
func DefaultConfig() Config {
	var c Config
	c.defaults()
	return c
}

func (c *Config) defaults() {
	c.MergeThreshold = cmp.Or(max(c.MergeThreshold, 0), 0.9)
	c.TopicThreshold = cmp.Or(max(c.TopicThreshold, 0), 0.5)
	c.Recall.defaults()
}

// Store keeps long-term memory: a tenant's experiences of three levels,
// grades, research topics and the grader's fails (every user's
// conversations teach every other's; every statement is scoped by tenant).
type Store struct {
	db      DB
	space   *Space
	cfg     Config
	log     *slog.Logger
	metrics *metrics
	sizes   sync.Map // "tenant:level:space" → sizeEntry, for the recall path
	common  commonStems
}

// NewStore returns a Store whose vectors live in space. reg may be nil.
func NewStore(db DB, space *Space, cfg Config, log *slog.Logger, reg prometheus.Registerer) *Store {
	cfg.defaults()
	return &Store{db: db, space: space, cfg: cfg, log: log, metrics: newMetrics(reg)}
}

// Space returns the store's embedding space.
func (s *Store) Space() *Space { return s.space }

type metrics struct {
	writes, merges *prometheus.CounterVec
	grades         *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		writes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "yakor_experience_writes_total", Help: "Experiences stored, by level (1 examples, 2 notes, 3 antipatterns).",
		}, []string{"level"}),
		merges: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "yakor_experience_merges_total", Help: "Near-duplicate experiences merged into a stored one instead of added, by level.",
		}, []string{"level"}),
		grades: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "yakor_grades_total", Help: "Replies graded, by score and source (model or user).",
		}, []string{"score", "source"}),
	}
	if reg != nil {
		reg.MustRegister(m.writes, m.merges, m.grades)
	}
	return m
}

func (m *metrics) wrote(level int)  { m.writes.WithLabelValues(strconv.Itoa(level)).Inc() }
func (m *metrics) merged(level int) { m.merges.WithLabelValues(strconv.Itoa(level)).Inc() }
func (m *metrics) graded(score int, source string) {
	m.grades.WithLabelValues(strconv.Itoa(score), source).Inc()
}

// Config returns the store's configuration, defaults filled in.
func (s *Store) Config() Config { return s.cfg }
