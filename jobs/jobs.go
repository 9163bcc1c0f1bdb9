// Package jobs runs Yakor's post-turn work through River, a job queue kept
// in the same PostgreSQL: a job is enqueued in the transaction that stores
// the reply, survives a crash, and is retried with backoff. Workers call
// into the domain packages: the turn's upkeep (upkeep: anchoring, facts
// and grading from one helper call), message embeddings (mnemos),
// compaction (history) and the research job (likbez, also on a schedule),
// on queues of their own so that a slow helper model never holds up the
// others. The job queue's tables are
// River's own. A job over a tenant's data works in that tenant
// (yakor.WithTenant), the one the database lets it see.
package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"yakor"
	"yakor/history"
	"yakor/postgres"
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

// UpTo names a thread and one of its messages: the arguments of a job over
// the thread's messages up to that one.
type UpTo struct {
	Thread
	UpTo int64 `json:"up_to"`
}

func (u UpTo) target() UpTo { return u }

// uniqueIn makes a job for the same thread and message unique in queue:
// enqueuing it twice queues it once.
func uniqueIn(queue string) river.InsertOpts {
	return river.InsertOpts{Queue: queue, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// upkeep is a turn's upkeep job: its reading, then compaction.
func (w Workers) upkeep(ctx context.Context, scope yakor.Scope, upTo int64) (int, error) {
	n, err := w.Upkeep.Process(ctx, scope, upTo)
	if err != nil || w.Compact == nil {
		return n, err
	}
	if _, err := w.Compact.CompactAll(ctx, scope); err != nil {
		return n, fmt.Errorf("compact: %w", err)
	}
	return n, nil
}

// Upkeeper reads a thread's new messages for its anchors, facts and
// grades with one helper call (package upkeep).
type Upkeeper interface {
	Process(ctx context.Context, scope yakor.Scope, upTo int64) (int, error)
}

// UpkeepArgs asks to read a thread's messages up to UpTo for its memory.
type UpkeepArgs struct{ UpTo }

// Kind names the job.
func (UpkeepArgs) Kind() string { return "upkeep_thread" }

// InsertOpts keeps one such job per thread and message.
func (UpkeepArgs) InsertOpts() river.InsertOpts { return uniqueIn(QueueUpkeep) }

// AnchorArgs asks to anchor a thread's messages up to UpTo.
type AnchorArgs struct{ UpTo }

// Kind names the job.
func (AnchorArgs) Kind() string { return "anchor_thread" }

// InsertOpts keeps one such job per thread and message.
func (AnchorArgs) InsertOpts() river.InsertOpts { return uniqueIn(queueAnchors) }

// upToArgs are the arguments of a job over a thread up to a message.
type upToArgs interface {
	river.JobArgs
	target() UpTo
}

// Replies tells whether a thread has a reply after a message: history, on
// the owner's pool.
type Replies interface {
	LaterReply(ctx context.Context, scope yakor.Scope, id int64) (bool, error)
}

// threadWorker works a job over a thread up to a message by calling work;
// each domain service it calls is idempotent per message (a cursor per
// thread, or a unique row per message) and takes every message of the
// thread up to the one named, so a job is covered by a later one of its
// kind and thread.
type threadWorker[A upToArgs] struct {
	river.WorkerDefaults[A]
	work    func(ctx context.Context, scope yakor.Scope, upTo int64) (int, error)
	timeout time.Duration // 0: River's default
	replies Replies       // nil: every job is worked
}

// Work calls the service for the job's thread and message, in its tenant,
// unless the thread has a later reply: the transaction that stored it
// enqueued the later turn's jobs, which take this one's messages too (or
// did, if they ran already). Behind a backlog (a thread's turns answered
// before its jobs run) the thread's messages are then worked in one pass
// instead of one job each. (An instance configured not to enqueue a kind
// leaves its messages to the thread's next job of that kind.)
func (w *threadWorker[A]) Work(ctx context.Context, job *river.Job[A]) error {
	t := job.Args.target()
	scope := t.Scope()
	if w.replies != nil {
		// Not finding out is no reason to skip: the job is then worked.
		if later, err := w.replies.LaterReply(ctx, scope, t.UpTo); err == nil && later {
			return nil
		}
	}
	_, err := w.work(scope.Context(ctx), scope, t.UpTo)
	return err
}

// Timeout is the worker's timeout.
func (w *threadWorker[A]) Timeout(*river.Job[A]) time.Duration { return w.timeout }

// Queues.
const (
	QueueUpkeep     = "upkeep"     // a turn's upkeep and compaction
	QueueEmbeddings = "embeddings" // message embeddings
	QueueResearch   = "research"   // the research job
	// The queues of the jobs an instance before the upkeep job enqueued.
	queueAnchors = "anchors"
	queueGrades  = "grades"
	queueFacts   = "facts"
)

// importPriority is River's priority (1 first, 4 last) of an import's
// upkeep: a bulk import's threads wait behind live conversations' turns.
const importPriority = 3

// Config tunes the client.
type Config struct {
	// Workers is how many jobs of each queue this instance runs at once; 0
	// makes an instance that only enqueues (another instance works the
	// queues).
	Workers int
	// QueueWorkers overrides Workers for the queues it names (Queues); the
	// queues of older instances' jobs run Workers.
	QueueWorkers map[string]int
	Logger       *slog.Logger
	// ResearchSchedule runs the research job on a schedule (nil: only when
	// asked).
	ResearchSchedule Schedule
}

// DefaultConfig is the queue's configuration unless told otherwise: eight
// workers of each queue (a post-turn job mostly waits: on the database,
// or on a model), one of research.
func DefaultConfig() Config {
	return Config{Workers: 8, QueueWorkers: map[string]int{QueueResearch: 1}}
}

// Queues are the job queues' names, for Config.QueueWorkers.
func Queues() []string {
	return []string{QueueUpkeep, QueueEmbeddings, QueueResearch}
}

// workers is how many jobs of queue this instance runs at once.
func (c Config) workers(queue string) int {
	if n, ok := c.QueueWorkers[queue]; ok && c.Workers > 0 {
		return n
	}
	return c.Workers
}

// fetchCooldown is the least time between two fetches of one queue's
// jobs (River's default is 100 ms): a queue fetches at most its workers'
// number of jobs at a time, and the post-turn jobs are many and mostly
// quick (a thread's job covered by its later one ends at once), so the
// default would bound a queue to a few dozen jobs a second.
const fetchCooldown = 10 * time.Millisecond

// Workers are the domain services the jobs call; a nil one's jobs are
// never enqueued. With Upkeep set, a turn's anchoring, facts and grading
// are one upkeep job (one helper call); Anchors, Grader and Facts then
// only work the jobs of their own kinds an older instance enqueued.
type Workers struct {
	Upkeep   Upkeeper
	Anchors  Anchorer
	Grader   Grader
	Messages MessageEmbedder
	Research Researcher
	Facts    FactExtractor
	Compact  Compactor
}

// rescueAfter is how long a job may stay running before River takes it
// for stuck and retries it: its worker died (the instance killed), or
// River could not record its end while the database was away. It is
// longer than any post-turn job may run (compaction's 10 minutes), so only
// a dead job is retried, and far shorter than River's hour, so that a
// reply's grading after a crash is late by minutes. A research run may go
// on longer (2 hours); its retry finds it still holding the run's lock and
// ends (likbez.ErrRunning). Every job is idempotent.
const rescueAfter = 15 * time.Minute

// Client enqueues and works Yakor's jobs.
type Client struct {
	river    *river.Client[pgx.Tx]
	working  bool
	w        Workers
	schedule Schedule
}

// New builds a client on pool.
func New(pool *pgxpool.Pool, cfg Config, w Workers) (*Client, error) {
	rc := &river.Config{Logger: cfg.Logger, RescueStuckJobsAfter: rescueAfter, FetchCooldown: fetchCooldown}
	replies := history.NewStore(pool) // the owner's pool: a job's tenant is not in its context yet
	if cfg.Workers > 0 {
		workers := river.NewWorkers()
		rc.Queues = map[string]river.QueueConfig{}
		queue := func(name string) { rc.Queues[name] = river.QueueConfig{MaxWorkers: max(1, cfg.workers(name))} }
		if w.Upkeep != nil {
			river.AddWorker(workers, &threadWorker[UpkeepArgs]{work: w.upkeep, replies: replies, timeout: 10 * time.Minute})
			queue(QueueUpkeep)
		}
		if w.Anchors != nil {
			river.AddWorker(workers, &threadWorker[AnchorArgs]{work: w.Anchors.Process, replies: replies})
			queue(queueAnchors)
		}
		if w.Grader != nil {
			river.AddWorker(workers, &gradeWorker{grader: w.Grader})
			queue(queueGrades)
		}
		if w.Messages != nil {
			river.AddWorker(workers, &threadWorker[EmbedArgs]{work: w.Messages.EmbedThread, replies: replies})
			queue(QueueEmbeddings)
		}
		if w.Facts != nil {
			river.AddWorker(workers, &threadWorker[FactsArgs]{work: w.Facts.Extract, replies: replies})
			queue(queueFacts)
		}
		if w.Compact != nil {
			river.AddWorker(workers, &threadWorker[CompactArgs]{timeout: 10 * time.Minute, replies: replies,
				work: func(ctx context.Context, scope yakor.Scope, _ int64) (int, error) {
					return w.Compact.CompactAll(ctx, scope)
				}})
			queue(queueFacts)
		}
		if w.Research != nil {
			river.AddWorker(workers, &researchWorker{research: w.Research})
			queue(QueueResearch)
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

// EnqueueAfterTurn queues a stored turn's work inside tx: anchoring when
// asked, grading of the reply, embedding of the thread's new messages, fact
// extraction and compaction, each when this client has its worker.
func (c *Client) EnqueueAfterTurn(ctx context.Context, tx pgx.Tx, scope yakor.Scope, a turn.AfterTurn) error {
	t := UpTo{Thread: ThreadOf(scope), UpTo: a.ReplyID}
	var params []river.InsertManyParams
	switch {
	case c.w.Upkeep != nil:
		p := river.InsertManyParams{Args: UpkeepArgs{t}}
		if a.Imported {
			p.InsertOpts = &river.InsertOpts{Priority: importPriority}
		}
		params = append(params, p)
	default:
		if a.Anchor && c.w.Anchors != nil {
			params = append(params, river.InsertManyParams{Args: AnchorArgs{t}})
		}
		if c.w.Grader != nil && !a.Imported {
			params = append(params, river.InsertManyParams{Args: GradeArgs{Thread: ThreadOf(scope), ReplyID: a.ReplyID}})
		}
		if c.w.Facts != nil {
			params = append(params, river.InsertManyParams{Args: FactsArgs{t}})
		}
	}
	if c.w.Messages != nil {
		params = append(params, river.InsertManyParams{Args: EmbedArgs{t}})
	}
	if c.w.Compact != nil && c.w.Upkeep == nil {
		params = append(params, river.InsertManyParams{Args: CompactArgs{t}})
	}
	if len(params) == 0 {
		return nil
	}
	if _, err := c.river.InsertManyTx(ctx, tx, params); err != nil {
		return postgres.Wrap("enqueue post-turn jobs", err)
	}
	return nil
}
