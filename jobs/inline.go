package jobs

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/likbez"
	"yakor/turn"
)

// Inline is a job queue kept in memory and worked when asked (RunPending),
// with the same workers as Client: for benchmarks and tests that need a
// thread's post-turn work done at a known point, as an idle worker would
// do it. What it holds is lost with the process; a server uses Client.
type Inline struct {
	w        Workers
	mu       sync.Mutex
	pending  []inlineJob
	research bool // a research run was asked for
}

type inlineJob struct {
	scope yakor.Scope
	after turn.AfterTurn
}

// NewInline returns an Inline queue calling w's workers.
func NewInline(w Workers) *Inline { return &Inline{w: w} }

// EnqueueAfterTurn keeps a stored turn's work for the next RunPending.
func (q *Inline) EnqueueAfterTurn(_ context.Context, _ pgx.Tx, scope yakor.Scope, a turn.AfterTurn) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending = append(q.pending, inlineJob{scope: scope, after: a})
	return nil
}

// EnqueueResearch asks for a research run at the next RunPending.
func (q *Inline) EnqueueResearch(context.Context) error {
	if q.w.Research == nil {
		return yakor.Errorf(yakor.EUNAVAILABLE, "research is not set up on this server")
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.research = true
	return nil
}

// NextResearch is nil: an Inline queue has no schedule.
func (q *Inline) NextResearch(time.Time) *time.Time { return nil }

// RunPending does the work kept since the last run, in the order an idle
// worker of each queue would finish it: for each turn the upkeep job
// (its reading, then compaction) and embedding — or, without an upkeep
// job, anchoring, grading, facts, embedding and compaction — each when its
// worker is set, then a research run when one was asked for.
func (q *Inline) RunPending(ctx context.Context) error {
	q.mu.Lock()
	pending, research := slices.Clone(q.pending), q.research
	q.pending, q.research = q.pending[:0], false
	q.mu.Unlock()
	for _, p := range pending {
		if err := q.w.runAfterTurn(p.scope.Context(ctx), p.scope, p.after); err != nil {
			return err
		}
	}
	if research {
		if _, err := q.w.Research.Run(ctx, likbez.TriggerAPI, nil); err != nil {
			return fmt.Errorf("research: %w", err)
		}
	}
	return nil
}

// runAfterTurn runs a turn's post-turn work with w's workers.
func (w Workers) runAfterTurn(ctx context.Context, scope yakor.Scope, a turn.AfterTurn) error {
	if w.Upkeep != nil {
		if _, err := w.upkeep(ctx, scope, a.ReplyID); err != nil {
			return fmt.Errorf("upkeep: %w", err)
		}
		return w.embed(ctx, scope, a)
	}
	if a.Anchor && w.Anchors != nil {
		if _, err := w.Anchors.Process(ctx, scope, a.ReplyID); err != nil {
			return fmt.Errorf("anchors: %w", err)
		}
	}
	if w.Grader != nil && !a.Imported {
		if err := w.Grader.GradeReply(ctx, scope, a.ReplyID, false); err != nil {
			return fmt.Errorf("grade: %w", err)
		}
	}
	if w.Facts != nil {
		if _, err := w.Facts.Extract(ctx, scope, a.ReplyID); err != nil {
			return fmt.Errorf("facts: %w", err)
		}
	}
	if err := w.embed(ctx, scope, a); err != nil {
		return err
	}
	if w.Compact != nil {
		if _, err := w.Compact.CompactAll(ctx, scope); err != nil {
			return fmt.Errorf("compact: %w", err)
		}
	}
	return nil
}

// embed runs a turn's message embedding.
func (w Workers) embed(ctx context.Context, scope yakor.Scope, a turn.AfterTurn) error {
	if w.Messages != nil {
		if _, err := w.Messages.EmbedThread(ctx, scope, a.ReplyID); err != nil {
			return fmt.Errorf("embed: %w", err)
		}
	}
	return nil
}
