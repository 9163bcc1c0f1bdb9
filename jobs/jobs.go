// Package jobs runs Yakor's post-turn work through River, a job queue kept
// in the same PostgreSQL: a job is enqueued in the transaction that stores
// the reply, survives a crash, and is retried with backoff. Workers call
// into the domain packages: anchoring (anchors), grading (sufler) and
// message embeddings (mnemos), each on a queue of its own so that a slow
// helper model never holds up the others. The job queue's tables are
// River's own.
package jobs

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"yakor"
	"yakor/turn"
)

// Thread names the thread a job works on; its fields are the job's
// arguments, as they are stored.
type Thread struct {
	TenantID string `json:"tenant_id"`
	UserID   string `json:"user_id"`
	ThreadID string `json:"thread_id"`
}

// ThreadOf names scope's thread.
func ThreadOf(scope yakor.Scope) Thread {
	return Thread{TenantID: scope.TenantID, UserID: scope.UserID, ThreadID: scope.ThreadID}
}

// Scope is the thread's scope.
func (t Thread) Scope() yakor.Scope {
	return yakor.Scope{TenantID: t.TenantID, UserID: t.UserID, ThreadID: t.ThreadID}
}

// Anchorer anchors a thread's messages up to a message.
type Anchorer interface {
	Process(ctx context.Context, scope yakor.Scope, upTo int64) (int, error)
}

// AnchorArgs asks to anchor a thread's messages up to UpTo.
type AnchorArgs struct {
	Thread
	UpTo int64 `json:"up_to"`
}

// Kind names the job.
func (AnchorArgs) Kind() string { return "anchor_thread" }

// InsertOpts makes a job for the same thread and message unique: enqueuing
// it twice queues it once.
func (AnchorArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queueAnchors, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

type anchorWorker struct {
	river.WorkerDefaults[AnchorArgs]
	anchors Anchorer
}

// Work anchors the job's thread; the anchorer is idempotent per message.
func (w *anchorWorker) Work(ctx context.Context, job *river.Job[AnchorArgs]) error {
	a := job.Args
	_, err := w.anchors.Process(ctx, a.Scope(), a.UpTo)
	return err
}

// Queues.
const (
	queueAnchors    = "anchors"
	queueGrades     = "grades"
	queueEmbeddings = "embeddings"
)

// Config tunes the client.
type Config struct {
	// Workers is how many jobs of each queue this instance runs at once; 0
	// makes an instance that only enqueues (another instance works the
	// queues).
	Workers int
	Logger  *slog.Logger
	// ResearchSchedule runs the research job on a schedule (nil: only when
	// asked).
	ResearchSchedule Schedule
}

// Workers are the domain services the jobs call; a nil one's jobs are
// never enqueued.
type Workers struct {
	Anchors  Anchorer
	Grader   Grader
	Messages MessageEmbedder
	Research Researcher
	Facts    FactExtractor
	Compact  Compactor
}

// Client enqueues and works Yakor's jobs.
type Client struct {
	river    *river.Client[pgx.Tx]
	working  bool
	w        Workers
	schedule Schedule
}

// New builds a client on pool.
func New(pool *pgxpool.Pool, cfg Config, w Workers) (*Client, error) {
	rc := &river.Config{Logger: cfg.Logger}
	if cfg.Workers > 0 {
		workers := river.NewWorkers()
		rc.Queues = map[string]river.QueueConfig{}
		if w.Anchors != nil {
			river.AddWorker(workers, &anchorWorker{anchors: w.Anchors})
			rc.Queues[queueAnchors] = river.QueueConfig{MaxWorkers: cfg.Workers}
		}
		if w.Grader != nil {
			river.AddWorker(workers, &gradeWorker{grader: w.Grader})
			rc.Queues[queueGrades] = river.QueueConfig{MaxWorkers: cfg.Workers}
		}
		if w.Messages != nil {
			river.AddWorker(workers, &embedWorker{messages: w.Messages})
			rc.Queues[queueEmbeddings] = river.QueueConfig{MaxWorkers: cfg.Workers}
		}
		if w.Facts != nil {
			river.AddWorker(workers, &factsWorker{facts: w.Facts})
			rc.Queues[queueFacts] = river.QueueConfig{MaxWorkers: cfg.Workers}
		}
		if w.Compact != nil {
			river.AddWorker(workers, &compactWorker{compactor: w.Compact})
			rc.Queues[queueFacts] = river.QueueConfig{MaxWorkers: cfg.Workers}
		}
		if w.Research != nil {
			river.AddWorker(workers, &researchWorker{research: w.Research})
			rc.Queues[queueResearch] = river.QueueConfig{MaxWorkers: 1}
			if cfg.ResearchSchedule != nil {
				rc.PeriodicJobs = []*river.PeriodicJob{periodicResearch(cfg.ResearchSchedule)}
			}
		}
		rc.Workers = workers
	}
	c, err := river.NewClient(riverpgxv5.New(pool), rc)
	if err != nil {
		return nil, fmt.Errorf("job queue: %w", err)
	}
	schedule := cfg.ResearchSchedule
	if w.Research == nil {
		schedule = nil
	}
	return &Client{river: c, working: cfg.Workers > 0 && len(rc.Queues) > 0, w: w, schedule: schedule}, nil
}

// Start starts working the queue (nothing for an enqueue-only client).
func (c *Client) Start(ctx context.Context) error {
	if !c.working {
		return nil
	}
	if err := c.river.Start(ctx); err != nil {
		return fmt.Errorf("job queue: start: %w", err)
	}
	return nil
}

// Stop stops fetching jobs and waits for running ones to finish or ctx to
// end; a job cut off is retried by the next instance to start.
func (c *Client) Stop(ctx context.Context) error {
	if !c.working {
		return nil
	}
	return c.river.Stop(ctx)
}

// EnqueueAnchors queues anchoring of scope's thread up to upTo, inside tx:
// the job exists exactly when tx commits.
func (c *Client) EnqueueAnchors(ctx context.Context, tx pgx.Tx, scope yakor.Scope, upTo int64) error {
	_, err := c.river.InsertTx(ctx, tx, AnchorArgs{Thread: ThreadOf(scope), UpTo: upTo}, nil)
	if err != nil {
		return fmt.Errorf("enqueue anchors: %w", err)
	}
	return nil
}

// EnqueueAfterTurn queues a stored turn's work inside tx: anchoring when
// asked, grading of the reply, embedding of the thread's new messages, fact
// extraction and compaction, each when this client has its worker.
func (c *Client) EnqueueAfterTurn(ctx context.Context, tx pgx.Tx, scope yakor.Scope, a turn.AfterTurn) error {
	var params []river.InsertManyParams
	if a.Anchor && c.w.Anchors != nil {
		params = append(params, river.InsertManyParams{Args: AnchorArgs{Thread: ThreadOf(scope), UpTo: a.ReplyID}})
	}
	if c.w.Grader != nil {
		params = append(params, river.InsertManyParams{Args: GradeArgs{Thread: ThreadOf(scope), ReplyID: a.ReplyID}})
	}
	if c.w.Messages != nil {
		params = append(params, river.InsertManyParams{Args: EmbedArgs{Thread: ThreadOf(scope), UpTo: a.ReplyID}})
	}
	if c.w.Facts != nil {
		params = append(params, river.InsertManyParams{Args: FactsArgs{Thread: ThreadOf(scope), UpTo: a.ReplyID}})
	}
	if c.w.Compact != nil {
		params = append(params, river.InsertManyParams{Args: CompactArgs{Thread: ThreadOf(scope), UpTo: a.ReplyID}})
	}
	if len(params) == 0 {
		return nil
	}
	if _, err := c.river.InsertManyTx(ctx, tx, params); err != nil {
		return fmt.Errorf("enqueue post-turn jobs: %w", err)
	}
	return nil
}
