package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"
)

// loadOptions configure benchLoad. Zero values take the defaults noted.
type loadOptions struct {
	Conversations int // conversations run at once; default 200
	Turns         int // turns of each conversation; default 50
	// Binary is the yakor binary served under load; "" is this one
	// (os.Executable), which a test binary is not.
	Binary string
	// BenchDir holds the private cluster (without DatabaseURL) and
	// serve.log; default ./.yakor-bench.
	BenchDir string
	// DatabaseURL points the server at an existing PostgreSQL; "" runs a
	// private cluster in BenchDir, which the bench owns (so it can restart it).
	DatabaseURL string
	// PGBin and PGUser are the private cluster's binaries and account (see
	// cluster.Options); PGSettings its extra server settings.
	PGBin, PGUser string
	PGSettings    map[string]string
	// Restart restarts the private PostgreSQL once RestartAt of the turns
	// are done (default 0.5), stopping it the RestartMode way: "fast"
	// (default: SIGINT, sessions cut, a checkpoint) or "immediate"
	// (SIGQUIT: no checkpoint, crash recovery on start).
	Restart     bool
	RestartAt   float64
	RestartMode string
	// RetryFor is how long a client keeps retrying one send; default 3m.
	RetryFor time.Duration
	// RequestTimeout bounds one HTTP request; default 2m.
	RequestTimeout time.Duration
	// JobsWait is how long after the last turn the bench waits for the
	// post-turn jobs to be done; default 60s.
	JobsWait time.Duration
	// ServeArgs are passed to `yakor serve` after the bench's own flags.
	ServeArgs []string
	// Citus runs the load on a private Citus cluster (BenchDir/citus, a
	// coordinator and CitusWorkers workers; default 2) instead of one
	// PostgreSQL; Distributed runs it on both, side by side.
	Citus, Distributed bool
	CitusWorkers       int
}

func (o *loadOptions) defaults() error {
	if o.Conversations == 0 {
		o.Conversations = 200
	}
	if o.Turns == 0 {
		o.Turns = 50
	}
	if o.Conversations < 1 || o.Turns < 1 {
		return errors.New("bench load: --conversations and --turns must be at least 1")
	}
	if o.BenchDir == "" {
		o.BenchDir = "./.yakor-bench"
	}
	if o.RestartAt == 0 {
		o.RestartAt = 0.5
	}
	if o.RestartAt <= 0 || o.RestartAt >= 1 {
		return fmt.Errorf("bench load: --restart-at %v must be above 0 and below 1", o.RestartAt)
	}
	switch o.RestartMode {
	case "":
		o.RestartMode = "fast"
	case "fast", "immediate":
	default:
		return fmt.Errorf("bench load: --restart-mode %q: say fast or immediate", o.RestartMode)
	}
	if o.CitusWorkers == 0 {
		o.CitusWorkers = 2
	}
	if (o.Citus || o.Distributed) && (o.DatabaseURL != "" || o.Restart) {
		return errors.New("bench load: --distributed runs its own private clusters: unset DATABASE_URL (and --database-url) and --restart-postgres")
	}
	if o.Restart && o.DatabaseURL != "" {
		return errors.New("bench load: --restart-postgres restarts the bench's own private cluster: unset DATABASE_URL (and --database-url)")
	}
	if o.RetryFor <= 0 {
		o.RetryFor = 3 * time.Minute
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = 2 * time.Minute
	}
	if o.JobsWait <= 0 {
		o.JobsWait = time.Minute
	}
	if o.Binary == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("bench load: find the yakor binary: %w", err)
		}
		o.Binary = exe
	}
	return nil
}

// loadReport is what a load run measured and found. Latencies are the
// client's, of successful sends (the attempt that succeeded).
type loadReport struct {
	Conversations        int     `json:"conversations"`
	TurnsPerConversation int     `json:"turns_per_conversation"`
	Turns                int     `json:"turns"` // sends that succeeded, one per message
	Seconds              float64 `json:"seconds"`
	TurnsPerSecond       float64 `json:"turns_per_second"`
	LatencyP50Ms         float64 `json:"latency_p50_ms"`
	LatencyP99Ms         float64 `json:"latency_p99_ms"`
	LatencyMaxMs         float64 `json:"latency_max_ms"`
	// Attempts counts every request of a send; Retries those after a
	// failure; Failures the failed ones by kind ("503", "409",
	// "connection"…), with one message of each kind in FailureSamples.
	Attempts       int               `json:"attempts"`
	Retries        int               `json:"retries"`
	Failures       map[string]int    `json:"failures"`
	FailureSamples map[string]string `json:"failure_samples,omitempty"`
	// Replayed counts retried sends the server answered from the stored
	// reply (the first attempt had been answered after all).
	Replayed int `json:"replayed"`
	// LongestRetriedMs is the longest time from a send's first attempt to
	// its success, among sends that were retried.
	LongestRetriedMs float64 `json:"longest_retried_ms"`
	// ServerPeakBytes is the server process's peak resident memory
	// (VmHWM), read at the end of the run.
	ServerPeakBytes int64          `json:"server_peak_bytes"`
	Restart         *restartReport `json:"restart,omitempty"`
	Check           loadCheck      `json:"check"`
	// Jobs are the post-turn jobs the run's turns enqueued, by kind, and
	// how far the server's workers got with them by the end of the wait
	// for them.
	Jobs []jobCount `json:"jobs"`
	// JobsDoneMs is how long after the last turn every post-turn job of
	// the run was done (-1: some were still waiting when the bench stopped
	// waiting, JobsWaitMs after the last turn).
	JobsDoneMs float64 `json:"jobs_done_ms"`
	JobsWaitMs float64 `json:"jobs_wait_ms"`
}

// restartReport is what the PostgreSQL restart took.
type restartReport struct {
	Mode      string  `json:"mode"`
	AtTurn    int     `json:"at_turn"`    // turns done when it began
	StopMs    float64 `json:"stop_ms"`    // until the server had exited
	StartMs   float64 `json:"start_ms"`   // until it accepted connections again
	ReadyMs   float64 `json:"ready_ms"`   // from then until yakor's /readyz said ready
	RecoverMs float64 `json:"recover_ms"` // from the stop until the first retried send succeeded
	Error     string  `json:"error,omitempty"`
}

// ok reports whether the run kept every message exactly once, in order.
func (r loadReport) ok() bool { return len(r.Check.Problems) == 0 }

func runBenchLoad(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlagSet("load", args, stdout, stderr)
	var o loadOptions
	fs.IntVar(&o.Conversations, "conversations", 200, "conversations run at once, each in its own thread")
	fs.IntVar(&o.Turns, "turns", 50, "turns of each conversation")
	fs.StringVar(&o.BenchDir, "bench-dir", "./.yakor-bench", "folder of the private cluster (used without DATABASE_URL) and of serve.log")
	fs.StringVar(&o.DatabaseURL, "database-url", getenv("DATABASE_URL"), "PostgreSQL server to serve from (env DATABASE_URL); empty runs a private cluster in --bench-dir")
	fs.StringVar(&o.PGBin, "pg-bin", getenv("YAKOR_PG_BIN"), "PostgreSQL server binaries for the private cluster (env YAKOR_PG_BIN)")
	fs.StringVar(&o.PGUser, "pg-user", getenv("YAKOR_PG_USER"), "account the private cluster runs as when run as root (env YAKOR_PG_USER)")
	fs.BoolVar(&o.Restart, "restart-postgres", false, "restart the private PostgreSQL in the middle of the run")
	fs.Float64Var(&o.RestartAt, "restart-at", 0.5, "fraction of the turns done when PostgreSQL is restarted")
	fs.StringVar(&o.RestartMode, "restart-mode", "fast", "how PostgreSQL is stopped: fast (SIGINT) or immediate (SIGQUIT, crash recovery on start)")
	fs.DurationVar(&o.RetryFor, "retry-for", 3*time.Minute, "how long a client keeps retrying one send")
	fs.StringVar(&o.Binary, "binary", "", "the yakor binary to serve (default: this one), e.g. an older build to compare")
	fs.DurationVar(&o.JobsWait, "jobs-wait", time.Minute, "how long after the last turn to wait for the post-turn jobs to be done")
	fs.BoolVar(&o.Distributed, "distributed", false, "run the load on one PostgreSQL and then on a private Citus cluster (--bench-dir/citus), side by side")
	fs.IntVar(&o.CitusWorkers, "citus-workers", 2, "workers of the Citus cluster of --distributed")
	jsonPath := fs.String("json", "", "also write the report as JSON to this file")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: yakor bench load [flags] [-- yakor serve flags]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	o.ServeArgs = fs.Args()
	if len(o.ServeArgs) > 0 && !slices.Contains(args, "--") {
		return fmt.Errorf("bench load: unexpected argument %q (flags for yakor serve go after --)", o.ServeArgs[0])
	}
	if o.Distributed {
		return runLoadDistributed(ctx, o, stdout, stderr, *jsonPath)
	}
	rep, err := benchLoad(ctx, o, stderr)
	if rep.Turns > 0 || len(rep.Check.Problems) > 0 {
		if perr := printLoadReport(stdout, rep); perr != nil && err == nil {
			err = perr
		}
	}
	if *jsonPath != "" && rep.Conversations > 0 {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if werr := os.WriteFile(*jsonPath, append(b, '\n'), 0o644); werr != nil && err == nil {
			err = fmt.Errorf("bench load: write --json: %w", werr)
		}
	}
	return err
}

// benchLoad serves yakor as a subprocess on loopback (the offline model),
// runs opts.Conversations conversations of opts.Turns turns at once over
// HTTP, each send with its own client id and retried with it on a 5xx or a
// broken connection, optionally restarting PostgreSQL midway, and then
// checks every thread through the API and in the database. The report is
// filled as far as the run got; the error is non-nil when the run could
// not be made or when a check failed (lost, duplicated or disordered
// messages, a turn left running). Progress goes to stderr.
func benchLoad(ctx context.Context, opts loadOptions, stderr io.Writer) (loadReport, error) {
	rep := loadReport{}
	if err := opts.defaults(); err != nil {
		return rep, err
	}
	rep.Conversations, rep.TurnsPerConversation = opts.Conversations, opts.Turns
	srv, err := startLoadServer(ctx, opts, stderr)
	if err != nil {
		return rep, err
	}
	defer srv.close(stderr)

	client := newLoadClient(srv.url, opts)
	convs, err := client.threads(ctx, opts.Conversations)
	if err != nil {
		return rep, err
	}
	fmt.Fprintf(stderr, "bench load: %d conversations × %d turns against %s…\n", opts.Conversations, opts.Turns, srv.url)

	total := opts.Conversations * opts.Turns
	var done atomic.Int64
	r := newRestarter(ctx, srv, opts, total, stderr)
	onTurn := func() { r.turnDone(done.Add(1)) }

	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, len(convs))
	for i := range convs {
		wg.Go(func() { errs[i] = client.converse(ctx, convs[i], opts.Turns, onTurn) })
	}
	stopProgress := progress(stderr, &done, total)
	wg.Wait()
	took := time.Since(start)
	stopProgress()
	if opts.Restart {
		var rerr error
		rep.Restart, rerr = r.wait(done.Load())
		err = errors.Join(err, rerr)
	}
	client.stats.fill(&rep)
	rep.Seconds = took.Seconds()
	rep.TurnsPerSecond = float64(rep.Turns) / took.Seconds()
	if rep.Restart != nil && !client.stats.recovered.IsZero() {
		rep.Restart.RecoverMs = ms(client.stats.recovered.Sub(srv.stoppedAt))
	}
	rep.ServerPeakBytes = srv.peakMemory()
	for i, e := range errs {
		if e != nil {
			err = errors.Join(err, fmt.Errorf("conversation %d: %w", i, e))
		}
	}
	rep.JobsDoneMs, rep.JobsWaitMs = waitJobs(ctx, srv.dbURL, start, start.Add(took), opts.JobsWait)
	rep.Check = checkLoad(ctx, client, srv, convs)
	if jobs, jerr := postTurnJobs(ctx, srv.dbURL, start); jerr != nil {
		fmt.Fprintf(stderr, "bench load: count the post-turn jobs: %v\n", jerr)
	} else {
		rep.Jobs = jobs
	}
	if !rep.ok() {
		err = errors.Join(err, fmt.Errorf("bench load: %d problems, first: %s", rep.Check.ProblemCount, rep.Check.Problems[0]))
	}
	return rep, err
}

// restarter restarts the private PostgreSQL once a share of the run's
// turns are done.
type restarter struct {
	at        int64 // the turn that sets it off; 0: none
	trigger   chan int
	restarted chan *restartReport
}

// newRestarter is a restarter of srv's PostgreSQL when opts.Restart says
// so, at opts.RestartAt of total turns.
func newRestarter(ctx context.Context, srv *loadServer, opts loadOptions, total int, stderr io.Writer) *restarter {
	r := &restarter{trigger: make(chan int, 1), restarted: make(chan *restartReport, 1)}
	if !opts.Restart {
		return r
	}
	r.at = max(1, int64(float64(total)*opts.RestartAt))
	go func() {
		at, ok := <-r.trigger
		if !ok {
			r.restarted <- nil
			return
		}
		rr, err := srv.restartPostgres(ctx, opts.RestartMode, stderr)
		if rr == nil {
			rr = &restartReport{Mode: opts.RestartMode}
		}
		rr.AtTurn = at
		if err != nil {
			rr.Error = err.Error()
			fmt.Fprintf(stderr, "bench load: restart PostgreSQL: %v\n", err)
		}
		r.restarted <- rr
	}()
	return r
}

// turnDone is told that n turns are done.
func (r *restarter) turnDone(n int64) {
	if n == r.at {
		r.trigger <- int(n)
	}
}

// wait returns the restart's report once the run has ended with done
// turns, and an error when there was no restart or it failed.
func (r *restarter) wait(done int64) (*restartReport, error) {
	if done < r.at {
		close(r.trigger)
	}
	rr := <-r.restarted
	switch {
	case rr == nil:
		return nil, errors.New("bench load: PostgreSQL was not restarted: the run ended first")
	case rr.Error != "":
		return rr, fmt.Errorf("bench load: restart PostgreSQL: %s", rr.Error)
	}
	return rr, nil
}

// printLoadReport writes rep as a table.
func printLoadReport(w io.Writer, rep loadReport) error {
	fmt.Fprintf(w, "yakor bench load: %d conversations × %d turns at once, yakor serve as a subprocess, offline model, native API over loopback HTTP, client-side times of successful sends\n\n",
		rep.Conversations, rep.TurnsPerConversation)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, f string, a ...any) { fmt.Fprintf(tw, "%s\t"+f+"\n", append([]any{k}, a...)...) }
	row("turns", "%d in %.1f s", rep.Turns, rep.Seconds)
	row("throughput", "%.1f turns/s", rep.TurnsPerSecond)
	row("latency p50", "%.1f ms", rep.LatencyP50Ms)
	row("latency p99", "%.1f ms", rep.LatencyP99Ms)
	row("latency max", "%.1f ms", rep.LatencyMaxMs)
	row("attempts", "%d (%d retries, %d answered from the stored reply)", rep.Attempts, rep.Retries, rep.Replayed)
	kinds := make([]string, 0, len(rep.Failures))
	for k := range rep.Failures {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		row("failed with "+k, "%d, e.g. %s", rep.Failures[k], rep.FailureSamples[k])
	}
	if rep.Retries > 0 {
		row("longest retried send", "%.1f ms from first attempt to success", rep.LongestRetriedMs)
	}
	row("server peak memory", "%.1f MiB (VmHWM)", float64(rep.ServerPeakBytes)/(1<<20))
	if r := rep.Restart; r != nil {
		row("PostgreSQL restart", "%s, after %d turns: stopped in %.0f ms, accepting connections %.0f ms later, yakor ready %.0f ms after that; first successful send %.0f ms after the stop began",
			r.Mode, r.AtTurn, r.StopMs, r.StartMs, r.ReadyMs, r.RecoverMs)
	}
	if rep.JobsDoneMs >= 0 {
		row("post-turn jobs done", "%.1f s after the last turn", rep.JobsDoneMs/1000)
	} else {
		row("post-turn jobs done", "not within %.0f s after the last turn", rep.JobsWaitMs/1000)
	}
	for _, j := range rep.Jobs {
		row("post-turn jobs "+j.Kind, "%d done, %d waiting at the end, %d failed", j.Done, j.Waiting, j.Failed)
	}
	c := rep.Check
	row("checked", "%d threads, %d messages through the API and in the database", c.Threads, c.Messages)
	row("lost / duplicated / out of order", "%d / %d / %d", c.Lost, c.Duplicated, c.OutOfOrder)
	row("turns left running", "%d (%d failed turns recorded, each retried)", c.RunningTurns, c.FailedTurns)
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(c.Problems) > 0 {
		fmt.Fprintf(w, "\n%d problems:\n  %s\n", c.ProblemCount, strings.Join(c.Problems, "\n  "))
	}
	return nil
}

// progress prints the turns done every 20 s until stopped.
func progress(w io.Writer, done *atomic.Int64, total int) (stop func()) {
	t := time.NewTicker(20 * time.Second)
	quit := make(chan struct{})
	go func() {
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				fmt.Fprintf(w, "bench load: %d of %d turns done\n", done.Load(), total)
			}
		}
	}()
	return func() {
		t.Stop()
		close(quit)
	}
}
