package likbez

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"yakor"
	"yakor/llm"
	"yakor/mnemos"
	"yakor/postgres"
)

// Source finds pages on a topic: a SearXNG instance.
type Source interface {
	Search(ctx context.Context, query string, n int) ([]Result, error)
}

// PageFetcher fetches a page's readable text.
type PageFetcher interface {
	Fetch(ctx context.Context, url string) (Page, error)
}

// Completer is the helper model that writes study notes.
type Completer interface {
	Complete(ctx context.Context, req llm.Request) (llm.Result, error)
}

// Topics is the research queue: research_topics, which mnemos owns
// (mnemos.TopicQueue). Claims and settlements work every tenant's topics;
// Counts one tenant's.
type Topics interface {
	Requeue(ctx context.Context) error
	Claim(ctx context.Context) (mnemos.DueTopic, bool, error)
	Done(ctx context.Context, tenant string, id int64) error
	Failed(ctx context.Context, tenant string, id int64, reason string, next *time.Time) error
	Pending(ctx context.Context) (int, error)
	Counts(ctx context.Context, scope yakor.Scope) (map[string]int, error)
}

// Indexer puts a study note into long-term memory (level 2).
type Indexer interface {
	AddExperience(ctx context.Context, scope yakor.Scope, x mnemos.Experience) (mnemos.Experience, bool, error)
}

// Config tunes the research job.
type Config struct {
	Results      int           // pages read per topic; default 8
	TopicsPerRun int           // topics one run takes at most; default 20
	MaxAttempts  int           // attempts at a topic before giving up; default 6
	Backoff      time.Duration // wait after a topic's first failure, doubling after each; default 10m, at most a day
	NoteChars    int           // length of a study note, characters; default 1,500
}

// DefaultConfig is the research job's configuration unless told
// otherwise.
func DefaultConfig() Config {
	var c Config
	c.defaults()
	return c
}

func (c *Config) defaults() {
	c.Results = cmp.Or(max(c.Results, 0), 8)
	c.TopicsPerRun = cmp.Or(max(c.TopicsPerRun, 0), 20)
	c.MaxAttempts = cmp.Or(max(c.MaxAttempts, 0), 6)
	c.Backoff = cmp.Or(max(c.Backoff, 0), 10*time.Minute)
	c.NoteChars = cmp.Or(max(c.NoteChars, 0), 1500)
}

// Service runs research: it takes the topics that are due, searches the
// source for each, reads the pages, writes a study note per page with the
// helper model (or extractively, offline), and stores the notes as
// research_articles indexed into long-term memory. It owns the
// research_articles and research_runs tables; it takes the topics from, and
// settles them through, mnemos' queue of research_topics.
type Service struct {
	pool   *pgxpool.Pool // the owner's: the run's lock and record
	db     DB            // one tenant's reads and writes
	topics Topics

	source  Source // nil: no research source configured
	fetch   PageFetcher
	helper  Completer // nil: offline notes
	index   Indexer
	cfg     Config
	log     *slog.Logger
	metrics *metrics
}

// New returns a Service that works topics' queue. source nil means none is
// configured (runs leave the topics pending and say so); helper nil writes
// notes offline; reg may be nil.
func New(pool *pgxpool.Pool, topics Topics, source Source, fetch PageFetcher, helper Completer, index Indexer, cfg Config, log *slog.Logger, reg prometheus.Registerer) *Service {
	cfg.defaults()
	return &Service{pool: pool, db: pool, topics: topics, source: source, fetch: fetch, helper: helper, index: index, cfg: cfg, log: log, metrics: newMetrics(reg)}
}

// DB is what the service needs for one tenant's data: the service role's
// pool (postgres.DB), which the database holds to the context's tenant.
type DB interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// WithTenantDB has one tenant's reads and writes (articles) go through db;
// the run's lock and record stay on the owner's pool.
func (s *Service) WithTenantDB(db DB) *Service {
	s.db = db
	return s
}

// Triggers of a run.
const (
	TriggerSchedule = "schedule"
	TriggerAPI      = "api"
	TriggerCLI      = "cli"
)

// NoSource is the message of a run without a research source.
const NoSource = "no research source configured: set YAKOR_SEARXNG_URL to a SearXNG instance with its JSON format enabled"

// Report is what a run did.
type Report struct {
	RunID      int64         `json:"run_id"`
	Trigger    string        `json:"trigger"`
	Message    string        `json:"message,omitempty"`
	Done       int           `json:"topics_done"`
	Failed     int           `json:"topics_failed"`
	Pending    int           `json:"topics_pending"`
	Articles   int           `json:"articles"`
	Topics     []TopicReport `json:"topics"`
	Skipped    bool          `json:"skipped,omitempty"` // the slot had run already
	StartedAt  time.Time     `json:"started_at"`
	FinishedAt time.Time     `json:"finished_at"`
}

// TopicReport is what a run did with one topic.
type TopicReport struct {
	TenantID string   `json:"tenant_id"`
	ID       int64    `json:"id"`
	Topic    string   `json:"topic"`
	Status   string   `json:"status"`
	Articles int      `json:"articles"`
	Errors   []string `json:"errors,omitempty"`
}

// ErrRunning is returned when another run holds the research lock.
var ErrRunning = yakor.Errorf(yakor.ECONFLICT, "a research run is already in progress")

// runLock is the advisory lock a run holds for its whole length.
const runLock = 7418540

// Run runs research now. slot names a scheduled run's time slot: a slot
// that has run already (on another instance) is skipped. Only one run goes
// at a time across all instances (ErrRunning). A topic left 'running' by a
// run that died is taken up again, and its stored articles are not stored
// twice.
func (s *Service) Run(ctx context.Context, trigger string, slot *time.Time) (Report, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return Report{}, postgres.Wrap("research run", err)
	}
	defer conn.Release()
	var locked bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, runLock).Scan(&locked); err != nil {
		return Report{}, postgres.Wrap("research run", err)
	}
	if !locked {
		return Report{}, ErrRunning
	}
	defer func() {
		_, _ = conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, runLock)
	}()

	r := Report{Trigger: trigger, StartedAt: time.Now(), Topics: []TopicReport{}}
	err = conn.QueryRow(ctx, `INSERT INTO research_runs (slot, trigger) VALUES ($1, $2) ON CONFLICT (slot) DO NOTHING RETURNING id`, slot, trigger).Scan(&r.RunID)
	started, err := postgres.Found("research run", err)
	if err != nil {
		return Report{}, err
	}
	if !started {
		r.Skipped, r.Message = true, "this slot has run already"
		return r, nil
	}
	// Holding the lock, no other run is alive: a topic still 'running' was
	// cut off with its run.
	if err := s.topics.Requeue(ctx); err != nil {
		return s.finish(ctx, r, err)
	}
	if s.source == nil {
		r.Message = NoSource
		return s.finish(ctx, r, nil)
	}
	for len(r.Topics) < s.cfg.TopicsPerRun {
		t, ok, err := s.topics.Claim(ctx)
		if err != nil {
			return s.finish(ctx, r, err)
		}
		if !ok {
			break
		}
		tr := s.research(yakor.WithTenant(ctx, t.TenantID), t)
		if ctx.Err() != nil {
			// Cut off: the topic stays 'running' and the next run takes it up.
			return s.finish(ctx, r, ctx.Err())
		}
		if err := s.settle(ctx, t, &tr); err != nil {
			return s.finish(ctx, r, err)
		}
		r.Topics = append(r.Topics, tr)
		r.Articles += tr.Articles
		if tr.Status == "done" {
			r.Done++
		} else {
			r.Failed++
		}
	}
	return s.finish(ctx, r, nil)
}

// finish records the run's end with cause (nil: it ran through).
func (s *Service) finish(ctx context.Context, r Report, cause error) (Report, error) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	pending, err := s.topics.Pending(wctx)
	if err != nil && cause == nil {
		cause = err
	}
	r.Pending = pending
	status := "done"
	if cause != nil {
		status = "failed"
		r.Message = strings.TrimSpace(r.Message + " " + cause.Error())
	}
	r.FinishedAt = time.Now()
	const q = `UPDATE research_runs SET status = $2, message = $3, topics_done = $4, topics_failed = $5,
    topics_pending = $6, articles = $7, finished_at = now() WHERE id = $1`
	if _, err := s.pool.Exec(wctx, q, r.RunID, status, r.Message, r.Done, r.Failed, r.Pending, r.Articles); err != nil {
		s.log.ErrorContext(wctx, "record research run", "run", r.RunID, "err", err)
	}
	s.metrics.run(r.Trigger, status, r)
	s.log.InfoContext(wctx, "research run finished", "run", r.RunID, "trigger", r.Trigger, "status", status,
		"topics_done", r.Done, "topics_failed", r.Failed, "topics_pending", r.Pending, "articles", r.Articles, "message", r.Message)
	if cause != nil {
		return r, fmt.Errorf("research run: %w", postgres.Wrap("research run", cause))
	}
	return r, nil
}

// settle records a researched topic's outcome: done once it has articles,
// else failed with the reason and its next attempt (none after the last).
func (s *Service) settle(ctx context.Context, t mnemos.DueTopic, tr *TopicReport) error {
	if tr.Articles > 0 {
		tr.Status = "done"
		err := s.topics.Done(ctx, t.TenantID, t.ID)
		s.metrics.topics.WithLabelValues("done").Inc()
		return err
	}
	tr.Status = "failed"
	reason := "no usable article"
	if len(tr.Errors) > 0 {
		reason += ": " + strings.Join(tr.Errors[:min(3, len(tr.Errors))], "; ")
	}
	var next *time.Time
	if t.Attempts < s.cfg.MaxAttempts {
		wait := s.cfg.Backoff << (t.Attempts - 1)
		if wait > 24*time.Hour || wait <= 0 {
			wait = 24 * time.Hour
		}
		n := time.Now().Add(wait)
		next = &n
	}
	err := s.topics.Failed(ctx, t.TenantID, t.ID, cutRunes(reason, 1000), next)
	s.metrics.topics.WithLabelValues("failed").Inc()
	return err
}
