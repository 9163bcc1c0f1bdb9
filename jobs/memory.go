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
	return w.grader.GradeReply(ctx, scope, a.ReplyID, job.Attempt >= job.MaxAttempts)
}

// Timeout leaves room for a slow helper model.
func (w *gradeWorker) Timeout(*river.Job[GradeArgs]) time.Duration { return 5 * time.Minute }

// EmbedArgs asks to embed a thread's messages up to UpTo.
type EmbedArgs struct {
	Thread
	UpTo int64 `json:"up_to"`
}

// Kind names the job.
func (EmbedArgs) Kind() string { return "embed_messages" }

// InsertOpts makes the job unique per thread and message.
func (EmbedArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queueEmbeddings, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

type embedWorker struct {
	river.WorkerDefaults[EmbedArgs]
	messages MessageEmbedder
}

// Work embeds the thread's messages that have no embedding yet.
func (w *embedWorker) Work(ctx context.Context, job *river.Job[EmbedArgs]) error {
	a := job.Args
	_, err := w.messages.EmbedThread(ctx, a.Scope(), a.UpTo)
	return err
}

// FactExtractor keeps the durable facts of a thread's messages.
type FactExtractor interface {
	ExtractFacts(ctx context.Context, scope yakor.Scope, upTo int64) (int, error)
}

// Compactor summarizes what is about to scroll out of a thread's window.
type Compactor interface {
	CompactAll(ctx context.Context, scope yakor.Scope) (int, error)
}

// FactsArgs asks to extract the facts of a thread's messages up to UpTo.
type FactsArgs struct {
	Thread
	UpTo int64 `json:"up_to"`
}

// Kind names the job.
func (FactsArgs) Kind() string { return "extract_facts" }

// InsertOpts makes the job unique per thread and message.
func (FactsArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queueFacts, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

type factsWorker struct {
	river.WorkerDefaults[FactsArgs]
	facts FactExtractor
}

// Work extracts the facts; the extractor keeps a cursor per thread.
func (w *factsWorker) Work(ctx context.Context, job *river.Job[FactsArgs]) error {
	a := job.Args
	_, err := w.facts.ExtractFacts(ctx, a.Scope(), a.UpTo)
	return err
}

// CompactArgs asks to compact a thread after message UpTo was stored.
type CompactArgs struct {
	Thread
	UpTo int64 `json:"up_to"`
}

// Kind names the job.
func (CompactArgs) Kind() string { return "compact_thread" }

// InsertOpts makes the job unique per thread and message.
func (CompactArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queueFacts, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

type compactWorker struct {
	river.WorkerDefaults[CompactArgs]
	compactor Compactor
}

// Work compacts the thread if its window would overflow; writing a summary
// twice stores one row.
func (w *compactWorker) Work(ctx context.Context, job *river.Job[CompactArgs]) error {
	a := job.Args
	_, err := w.compactor.CompactAll(ctx, a.Scope())
	return err
}

// Timeout leaves room for a slow helper model.
func (w *compactWorker) Timeout(*river.Job[CompactArgs]) time.Duration { return 10 * time.Minute }

const queueFacts = "facts"
