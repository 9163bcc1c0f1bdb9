package jobs

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"yakor"
)

// Grader grades a reply and routes the grade into long-term memory. final
// is set on the job's last attempt: the grader should then settle for what
// it can do without the helper model rather than fail.
type Grader interface {
	GradeReply(ctx context.Context, scope yakor.Scope, replyID int64, final bool) error
}

// MessageEmbedder embeds a thread's messages for the semantic leg of
// history search.
type MessageEmbedder interface {
	EmbedThread(ctx context.Context, scope yakor.Scope, upTo int64) (int, error)
}

// GradeArgs asks to grade one reply.
type GradeArgs struct {
	Thread
	ReplyID int64 `json:"reply_id"`
}

// Kind names the job.
func (GradeArgs) Kind() string { return "grade_reply" }

// gradeAttempts bounds a grading job's attempts: River's backoff (attempt⁴
// seconds) spreads them over about ten minutes, and the last one grades
// offline if the helper model is still failing.
const gradeAttempts = 5

// InsertOpts makes a grading job unique per reply.
func (GradeArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queueGrades, MaxAttempts: gradeAttempts, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

type gradeWorker struct {
	river.WorkerDefaults[GradeArgs]
	grader Grader
}

// Work grades the reply; the grader is idempotent per reply.
func (w *gradeWorker) Work(ctx context.Context, job *river.Job[GradeArgs]) error {
	a := job.Args
	scope := a.Scope()
	return w.grader.GradeReply(scope.Context(ctx), scope, a.ReplyID, job.Attempt >= job.MaxAttempts)
}

// Timeout leaves room for a slow helper model.
func (w *gradeWorker) Timeout(*river.Job[GradeArgs]) time.Duration { return 5 * time.Minute }

// EmbedArgs asks to embed a thread's messages up to UpTo.
type EmbedArgs struct{ UpTo }

// Kind names the job.
func (EmbedArgs) Kind() string { return "embed_messages" }

// InsertOpts keeps one such job per thread and message.
func (EmbedArgs) InsertOpts() river.InsertOpts { return uniqueIn(QueueEmbeddings) }

// FactExtractor keeps the durable facts of a thread's messages: the facts
// package's Store.
type FactExtractor interface {
	Extract(ctx context.Context, scope yakor.Scope, upTo int64) (int, error)
}

// Compactor summarizes what is about to scroll out of a thread's window.
type Compactor interface {
	CompactAll(ctx context.Context, scope yakor.Scope) (int, error)
}

// FactsArgs asks to extract the facts of a thread's messages up to UpTo.
type FactsArgs struct{ UpTo }

// Kind names the job.
func (FactsArgs) Kind() string { return "extract_facts" }

// InsertOpts keeps one such job per thread and message.
func (FactsArgs) InsertOpts() river.InsertOpts { return uniqueIn(queueFacts) }

// CompactArgs asks to compact a thread after message UpTo was stored.
type CompactArgs struct{ UpTo }

// Kind names the job.
func (CompactArgs) Kind() string { return "compact_thread" }

// InsertOpts keeps one such job per thread and message.
func (CompactArgs) InsertOpts() river.InsertOpts { return uniqueIn(queueFacts) }
