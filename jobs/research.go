package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"yakor"
	"yakor/likbez"
)

// Researcher runs the research job.
type Researcher interface {
	Run(ctx context.Context, trigger string, slot *time.Time) (likbez.Report, error)
}

// Schedule is when the research job runs: a parsed cron spec.
type Schedule interface {
	Next(time.Time) time.Time
}

// ResearchArgs asks for a research run.
type ResearchArgs struct {
	Trigger string     `json:"trigger"`
	Slot    *time.Time `json:"slot,omitempty"` // a scheduled run's time
}

// Kind names the job.
func (ResearchArgs) Kind() string { return "research_run" }

// InsertOpts keeps one research run queued at a time per trigger and slot:
// asking again while one waits or runs queues nothing.
func (ResearchArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueResearch, MaxAttempts: 3, UniqueOpts: river.UniqueOpts{
		ByArgs: true,
		ByState: []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
			rivertype.JobStateRunning, rivertype.JobStateScheduled},
	}}
}

type researchWorker struct {
	river.WorkerDefaults[ResearchArgs]
	research Researcher
}

// Work runs research. A run that finds another one going is done: that one
// covers it.
func (w *researchWorker) Work(ctx context.Context, job *river.Job[ResearchArgs]) error {
	_, err := w.research.Run(ctx, job.Args.Trigger, job.Args.Slot)
	if errors.Is(err, likbez.ErrRunning) {
		return nil
	}
	return err
}

// Timeout leaves a run the time it needs: pages are fetched one by one.
func (w *researchWorker) Timeout(*river.Job[ResearchArgs]) time.Duration { return 2 * time.Hour }

// periodicResearch enqueues a scheduled run at every slot of schedule; River
// enqueues periodic jobs on its elected leader only, so several instances
// on one database run each slot once.
func periodicResearch(schedule Schedule) *river.PeriodicJob {
	return river.NewPeriodicJob(schedule, func() (river.JobArgs, *river.InsertOpts) {
		slot := time.Now().UTC().Truncate(time.Second)
		return ResearchArgs{Trigger: likbez.TriggerSchedule, Slot: &slot}, nil
	}, nil)
}

// EnqueueResearch queues a research run now. ECONFLICT: one is already
// queued or running.
func (c *Client) EnqueueResearch(ctx context.Context) error {
	if c.w.Research == nil {
		return yakor.Errorf(yakor.EUNAVAILABLE, "research is not set up on this server")
	}
	res, err := c.river.Insert(ctx, ResearchArgs{Trigger: likbez.TriggerAPI}, nil)
	if err != nil {
		return fmt.Errorf("enqueue research: %w", err)
	}
	if res.UniqueSkippedAsDuplicate {
		return yakor.Errorf(yakor.ECONFLICT, "a research run is already queued or running")
	}
	return nil
}

// NextResearch is when the next scheduled run is due, nil without a schedule.
func (c *Client) NextResearch(now time.Time) *time.Time {
	if c.schedule == nil {
		return nil
	}
	next := c.schedule.Next(now)
	return &next
}
