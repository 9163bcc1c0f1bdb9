package bench

// The throughput section of yakor bench all: bench load at a smaller
// scale, on a database of its own beside the benchmark's.

import (
	"context"
	"fmt"
	"strings"
)

// allLoad measures throughput and the server's peak memory with bench
// load: e.scale.LoadConversations conversations at once, LoadTurns turns
// each, over loopback HTTP against yakor serve as a subprocess (the
// offline model, its post-turn workers on), on a fresh database of its own
// in the bench's server; then every thread is checked as bench load checks
// it.
func allLoad(ctx context.Context, e *allEnv) (allPart, error) {
	name := e.db.siblingName("load")
	sib, _, err := e.db.openSibling(ctx, name, true, e.log)
	if err != nil {
		return allPart{}, err
	}
	url := sib.url
	sib.Close()
	defer e.db.dropSibling(context.WithoutCancel(ctx), name) //nolint:errcheck
	opts := loadOptions{Conversations: e.scale.LoadConversations, Turns: e.scale.LoadTurns, DatabaseURL: url,
		BenchDir: e.cfg.DataDir, Binary: e.binary}
	rep, err := benchLoad(ctx, opts, e.stderr)
	if err != nil {
		return allPart{}, fmt.Errorf("bench load: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d conversations at once, %d turns each, over loopback HTTP (the native API, a send and its whole reply per turn) against `yakor serve` run as a subprocess with the offline model and its post-turn workers on, on a fresh database; "+
		"times are the client's, from a send to its whole reply. Afterwards every thread is read back through the API and in the database: each message once, each answered once, in order.\n\n",
		rep.Conversations, rep.TurnsPerConversation)
	b.WriteString("| turns | seconds | turns per second | p50 | p99 | max | server peak memory (VmHWM) | lost | duplicated | out of order |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	c := rep.Check
	fmt.Fprintf(&b, "| %s | %.1f | %.1f | %.0f ms | %.0f ms | %.0f ms | %.1f MiB | %d | %d | %d |\n",
		groupThousands(rep.Turns), rep.Seconds, rep.TurnsPerSecond, rep.LatencyP50Ms, rep.LatencyP99Ms, rep.LatencyMaxMs, float64(rep.ServerPeakBytes)/(1<<20), c.Lost, c.Duplicated, c.OutOfOrder)
	if len(rep.Jobs) > 0 {
		done := fmt.Sprintf("were all done %.1f s after the last turn", rep.JobsDoneMs/1000)
		if rep.JobsDoneMs < 0 {
			done = fmt.Sprintf("were not all done %.0f s after the last turn", rep.JobsWaitMs/1000)
		}
		fmt.Fprintf(&b, "\nThe post-turn jobs (a turn's upkeep: anchors, facts, grading, compaction) run on the same 2 cores as the turns (a thread's waiting jobs are worked in one pass, by the latest of them: the others end at once); they %s:\n\n| job | done | waiting | failed |\n|---|---:|---:|---:|\n", done)
		for _, j := range rep.Jobs {
			fmt.Fprintf(&b, "| %s | %d | %d | %d |\n", j.Kind, j.Done, j.Waiting, j.Failed)
		}
	}
	b.WriteString("\nThe full load test (200 conversations × 50 turns, and with PostgreSQL restarted midway) is `yakor bench load` ([docs/development.md](development.md#benchmarks)).\n")
	figs := []allFigure{
		{Figure: fmt.Sprintf("Throughput, %d conversations at once", rep.Conversations), Value: fmt.Sprintf("%.1f turns/s", rep.TurnsPerSecond),
			Detail: fmt.Sprintf("p50 %.0f ms, p99 %.0f ms per turn; %s turns, %d lost, %d duplicated", rep.LatencyP50Ms, rep.LatencyP99Ms, groupThousands(rep.Turns), c.Lost, c.Duplicated)},
		{Figure: "Server peak memory under that load", Value: fmt.Sprintf("%.1f MiB", float64(rep.ServerPeakBytes)/(1<<20)), Detail: "VmHWM of the yakor serve process"},
	}
	return allPart{Figures: figs, Body: b.String(), Result: rep,
		Reproduce: []string{fmt.Sprintf("bin/yakor bench load --conversations %d --turns %d", rep.Conversations, rep.TurnsPerConversation)}}, nil
}
