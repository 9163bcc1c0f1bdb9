// Package upkeep reads a thread's new messages for its memory with one
// helper-model call: the topic and key data of each message (anchors), the
// facts of each user message (facts) and the grade of each reply
// (sufler), from one compact input — the new messages, the current anchor,
// the known facts and the search hits the replies used, not the prompt
// again. It then hands each service what it read; a message the helper did
// not read well is read offline by its service. When a thread's upkeep is
// behind, one call covers all its waiting messages (up to a size, then one
// call per part). A malformed answer is asked again once, then the
// messages are read offline. No transaction is open while the helper
// thinks. The package owns the table upkeep_cursors.
package upkeep

import (
	"context"
	"fmt"
	"hash/fnv"
	"log/slog"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/prometheus/client_golang/prometheus"

	"yakor"
	"yakor/anchors"
	"yakor/facts"
	"yakor/history"
	"yakor/keylock"
	"yakor/llm"
	"yakor/postgres"
	"yakor/sufler"
)

// Completer is the helper model.
type Completer interface {
	Complete(ctx context.Context, req llm.Request) (llm.Result, error)
}

// Anchors keeps a thread's anchors: anchors.Service.
type Anchors interface {
	Current(ctx context.Context, scope yakor.Scope) (anchors.Anchor, bool, error)
	ApplyRead(ctx context.Context, scope yakor.Scope, upTo int64, read map[int64]anchors.Extraction) ([]anchors.Applied, error)
}

// Facts keeps a thread's facts: facts.Store.
type Facts interface {
	Visible(ctx context.Context, scope yakor.Scope) ([]facts.Fact, error)
	ExtractRead(ctx context.Context, scope yakor.Scope, upTo int64, read map[int64]facts.Said) (int, error)
}

// Grades routes replies' grades into long-term memory: sufler.Service.
type Grades interface {
	GradeRead(ctx context.Context, scope yakor.Scope, replyID int64, g *sufler.Grade, grader string) error
}

// Messages reads a thread's messages: history.Store.
type Messages interface {
	Between(ctx context.Context, scope yakor.Scope, afterID, upTo int64) ([]history.Message, error)
	FindMessages(ctx context.Context, scope yakor.Scope, ids []int64) ([]history.Message, error)
}

// Turns tells which search hits a turn showed its model: turn.Engine.
type Turns interface {
	Found(ctx context.Context, scope yakor.Scope, turnID string) ([]int64, error)
}

// DB is the tenant's database.
type DB interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// Config tunes the reader.
type Config struct {
	// GradeRate is the share of replies graded, 0 to 1 (1: every reply).
	// A user's thumbs up or down is routed whatever the rate.
	GradeRate float64
	// BatchChars bounds the characters of new messages one helper call
	// reads; a longer backlog takes one call per part.
	BatchChars int
	// Model names the helper model in its grades ("" : the name its
	// answer reports).
	Model string
}

// DefaultConfig is the reader's configuration unless told otherwise.
func DefaultConfig() Config { return Config{GradeRate: 1, BatchChars: 16000} }

// Parts are the services the reader feeds; a nil one is left out (its
// part of the reading is not asked for).
type Parts struct {
	Anchors  Anchors
	Facts    Facts
	Grades   Grades
	Messages Messages
	Turns    Turns
}

// Service reads threads' new messages for their memory.
type Service struct {
	db        DB
	helper    Completer // nil: every message is read offline
	parts     Parts
	cfg       Config
	log       *slog.Logger
	threads   keylock.Locks
	fallbacks prometheus.Counter
}

// New returns a Service. helper may be nil; reg may be nil.
func New(db DB, helper Completer, parts Parts, cfg Config, log *slog.Logger, reg prometheus.Registerer) *Service {
	d := DefaultConfig()
	if cfg.BatchChars <= 0 {
		cfg.BatchChars = d.BatchChars
	}
	s := &Service{db: db, helper: helper, parts: parts, cfg: cfg, log: log,
		fallbacks: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "yakor_upkeep_fallbacks_total",
			Help: "Readings of a thread's new messages where the helper model failed or answered malformed JSON twice and the messages were read offline.",
		})}
	if reg != nil {
		reg.MustRegister(s.fallbacks)
	}
	return s
}

// Process reads scope's thread's messages after its upkeep cursor up to
// upTo and hands what it read to the anchors, the facts and the grader;
// it returns how many messages it read. Within this process one reading
// at a time runs per thread, so a job that waited finds its messages read.
func (s *Service) Process(ctx context.Context, scope yakor.Scope, upTo int64) (int, error) {
	unlock, err := s.threads.Lock(ctx, scope.TenantID+"/"+scope.ThreadID)
	if err != nil {
		return 0, fmt.Errorf("upkeep: %w", err)
	}
	defer unlock()
	cursor, err := s.cursor(ctx, scope)
	if err != nil || cursor >= upTo {
		return 0, err
	}
	msgs, err := s.parts.Messages.Between(ctx, scope, cursor, upTo)
	if err != nil {
		return 0, fmt.Errorf("upkeep: %w", err)
	}
	r, err := s.read(ctx, scope, msgs)
	if err != nil {
		return 0, err
	}
	if err := s.hand(ctx, scope, upTo, msgs, r); err != nil {
		return 0, err
	}
	_, err = s.db.Exec(ctx, `INSERT INTO upkeep_cursors (tenant_id, thread_id, through_id) VALUES ($1, $2, $3)
ON CONFLICT (tenant_id, thread_id) DO UPDATE SET through_id = greatest(upkeep_cursors.through_id, excluded.through_id), updated_at = excluded.updated_at`,
		scope.TenantID, scope.ThreadParam(), upTo)
	return len(msgs), postgres.Wrap("upkeep: move the cursor", err)
}

// cursor is the last message of scope's thread read for its upkeep (0:
// none).
func (s *Service) cursor(ctx context.Context, scope yakor.Scope) (int64, error) {
	var c int64
	err := s.db.QueryRow(ctx, `SELECT through_id FROM upkeep_cursors WHERE tenant_id = $1 AND thread_id = $2`, scope.TenantID, scope.ThreadParam()).Scan(&c)
	if _, err := postgres.Found("upkeep: read the cursor", err); err != nil {
		return 0, err
	}
	return c, nil
}

// hand gives each service what was read. Each is idempotent per message,
// so a retried job writes nothing twice (a grade is routed once).
func (s *Service) hand(ctx context.Context, scope yakor.Scope, upTo int64, msgs []history.Message, r reading) error {
	if s.parts.Anchors != nil {
		if _, err := s.parts.Anchors.ApplyRead(ctx, scope, upTo, r.topics); err != nil {
			return err
		}
	}
	if s.parts.Facts != nil {
		if _, err := s.parts.Facts.ExtractRead(ctx, scope, upTo, r.said); err != nil {
			return err
		}
	}
	for _, id := range s.toGrade(msgs) {
		var g *sufler.Grade
		if gr, ok := r.grades[id]; ok {
			g = &gr
		}
		if err := s.parts.Grades.GradeRead(ctx, scope, id, g, r.grader); err != nil {
			return err
		}
	}
	return nil
}

// toGrade are the replies of msgs to grade: the model's replies (a reply
// imported or sent by a client has no turn) that the grade rate samples.
func (s *Service) toGrade(msgs []history.Message) []int64 {
	if s.parts.Grades == nil {
		return nil
	}
	var ids []int64
	for _, m := range msgs {
		if m.Role == history.RoleAssistant && m.TurnID != "" && sampled(m.ID, s.cfg.GradeRate) {
			ids = append(ids, m.ID)
		}
	}
	return ids
}

// sampled tells whether reply id is among the share rate of replies: the
// same reply always is or is not.
func sampled(id int64, rate float64) bool {
	if rate >= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(strconv.FormatInt(id, 10)))
	return float64(h.Sum64()%10000)/10000 < rate
}
