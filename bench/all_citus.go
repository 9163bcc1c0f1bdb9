package bench

// The distributed section of yakor bench all: the throughput load on one
// PostgreSQL and on a private Citus cluster side by side, then the turn
// and search benchmarks again through the Citus coordinator.

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"yakor/app"
	"yakor/migrations"
	"yakor/postgres"
	"yakor/postgres/citus"
)

// allCitusWorkers is the distributed section's workers.
const allCitusWorkers = 2

// allDistributedResult is the distributed section's result.
type allDistributedResult struct {
	Load   [2]loadReport  `json:"load"` // one node, Citus
	Turn   allTurnResult  `json:"turn"`
	Search []searchResult `json:"search"`
}

// allDistributed runs the section. The load runs first (it starts and
// stops the cluster itself); then the cluster is started for the turn and
// search corpora, loaded into databases of their own on it (not kept: a
// Citus database is not copied from a template), and measured as on one
// node.
func allDistributed(ctx context.Context, e *allEnv) (allPart, error) {
	var res allDistributedResult
	lo := loadOptions{Conversations: e.scale.LoadConversations, Turns: e.scale.LoadTurns, BenchDir: e.cfg.DataDir,
		Binary: e.binary, CitusWorkers: allCitusWorkers, PGSettings: citusServerSettings}
	var err error
	if res.Load, err = benchLoadDistributed(ctx, lo, e.stderr); err != nil {
		return allPart{}, fmt.Errorf("bench load --distributed: %w", err)
	}
	c, err := citus.Start(ctx, citus.Options{Dir: filepath.Join(e.cfg.DataDir, "citus"), Workers: allCitusWorkers,
		Extensions: migrations.Extensions(), Settings: citusServerSettings, Logger: e.log})
	if err != nil {
		return allPart{}, err
	}
	defer c.Stop(context.WithoutCancel(ctx)) //nolint:errcheck
	cdb, err := openCitusDatabase(ctx, c.URL(), e)
	if err != nil {
		return allPart{}, err
	}
	defer cdb.Close()
	ce := *e
	ce.db, ce.pipe, ce.fresh = cdb, nil, true
	ce.scale.TurnSizes = e.scale.CitusTurnSizes
	m, err := allTurnLoad(ctx, &ce)
	if err != nil {
		return allPart{}, fmt.Errorf("turn corpus on Citus: %w", err)
	}
	turnPart, err := m(ctx, &ce)
	if err != nil {
		return allPart{}, fmt.Errorf("turns on Citus: %w", err)
	}
	res.Turn = turnPart.Result.(allTurnResult)
	corpus, err := openSearchCorpus(ctx, cdb, e.log, e.scale.CitusSearch, e.scale.SearchBig, true, nil, e.stderr)
	if err != nil {
		return allPart{}, fmt.Errorf("search corpus on Citus: %w", err)
	}
	name := cdb.siblingName(fmt.Sprintf("search_%d_%d", e.scale.CitusSearch, e.scale.SearchBig))
	defer cdb.dropSibling(context.WithoutCancel(ctx), name) //nolint:errcheck
	searchPart, err := allSearch(ctx, &ce, []*searchCorpus{corpus})
	if err != nil {
		return allPart{}, fmt.Errorf("search on Citus: %w", err)
	}
	res.Search = searchPart.Result.([]searchResult)
	return allDistributedPart(e, res), nil
}

// openCitusDatabase opens (and migrates: distributes) the coordinator's
// database url names, as the benchmark's own.
func openCitusDatabase(ctx context.Context, url string, e *allEnv) (*database, error) {
	db := &database{Database: &app.Database{}, url: url}
	var err error
	if db.Owner, err = postgres.Open(ctx, url, postgres.Options{}, e.log); err == nil {
		if err = postgres.Migrate(ctx, db.Owner, e.log); err == nil {
			db.Tenant, err = postgres.OpenService(ctx, url, "", postgres.Options{}, e.log)
		}
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("bench: the Citus coordinator's database: %w", err)
	}
	return db, nil
}

// allDistributedPart renders the section.
func allDistributedPart(e *allEnv, res allDistributedResult) allPart {
	var b strings.Builder
	one, dist := res.Load[0], res.Load[1]
	fmt.Fprintf(&b, "The same benchmarks on Citus: a coordinator and %d workers, three PostgreSQL servers on this one machine, the tables distributed by tenant (migration 00024), every statement of a turn routed to its tenant's one shard. "+
		"**On two cores this measures what distribution costs, not what it gains**: the coordinator and the workers share the cores a single server had to itself, and each statement goes through the coordinator, in a transaction block that carries the tenant to the worker (row-level security holds there).\n\n", allCitusWorkers)
	fmt.Fprintf(&b, "**Throughput**, the throughput section's load (%d conversations × %d turns) on one PostgreSQL and then on Citus, one after the other in this section:\n\n", one.Conversations, one.TurnsPerConversation)
	b.WriteString("| | turns/s | p50 | p99 | post-turn jobs done after the last turn | lost / duplicated / out of order |\n|---|---:|---:|---:|---:|---|\n")
	for i, r := range res.Load {
		fmt.Fprintf(&b, "| %s | %.1f | %.0f ms | %.0f ms | %.1f s | %d / %d / %d |\n", []string{"one PostgreSQL", "Citus"}[i], r.TurnsPerSecond, r.LatencyP50Ms, r.LatencyP99Ms, r.JobsDoneMs/1000, r.Check.Lost, r.Check.Duplicated, r.Check.OutOfOrder)
	}
	if one.TurnsPerSecond > 0 {
		fmt.Fprintf(&b, "\nCitus ÷ one node: throughput %.2f×, p50 %.2f×.\n", dist.TurnsPerSecond/one.TurnsPerSecond, dist.LatencyP50Ms/one.LatencyP50Ms)
	}
	b.WriteString("\n**Memory cost per turn through the coordinator** (as section 1, the thread's tenant on one worker):\n\n| messages in the thread | turns | memory p50 | memory p99 | turn p50 | turn p99 |\n|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range res.Turn.Results {
		fmt.Fprintf(&b, "| %s | %d | %.2f ms | %.2f ms | %.2f ms | %.2f ms |\n", groupThousands(r.Messages), r.Turns, r.MemP50, r.MemP99, r.TotP50, r.TotP99)
	}
	b.WriteString("\n**History search through the coordinator** (as section 2; the corpus's one tenant on one worker):\n\n| messages in the database | thread | messages in the thread | p50 | p95 | p99 | max |\n|---:|---|---:|---:|---:|---:|---:|\n")
	for _, r := range res.Search {
		for _, t := range []searchThreads{r.BigThread, r.SmallThreads} {
			fmt.Fprintf(&b, "| %s | %s | %s | %.2f ms | %.2f ms | %.2f ms | %.2f ms |\n", groupThousands(r.Messages), t.Name, groupThousands(t.Messages), t.P50, t.P95, t.P99, t.Max)
		}
	}
	figs := []allFigure{{Figure: fmt.Sprintf("Throughput on Citus (a coordinator, %d workers, one machine)", allCitusWorkers),
		Value:  fmt.Sprintf("%.1f turns/s (one node in the same section: %.1f)", dist.TurnsPerSecond, one.TurnsPerSecond),
		Detail: fmt.Sprintf("p50 %.0f ms vs %.0f ms; %d lost, %d duplicated", dist.LatencyP50Ms, one.LatencyP50Ms, dist.Check.Lost, dist.Check.Duplicated)}}
	for _, r := range res.Turn.Results {
		figs = append(figs, allFigure{Figure: fmt.Sprintf("Memory cost per turn on Citus, %s messages in the thread", groupThousands(r.Messages)),
			Value: fmt.Sprintf("p50 %.2f ms, p99 %.2f ms", r.MemP50, r.MemP99), Detail: "through the coordinator"})
	}
	for _, r := range res.Search {
		figs = append(figs, allFigure{Figure: fmt.Sprintf("Search latency on Citus, %s messages", groupThousands(r.Messages)),
			Value: fmt.Sprintf("p50 %.2f ms, p99 %.2f ms (thread of %s)", r.BigThread.P50, r.BigThread.P99, groupThousands(r.Big)), Detail: "through the coordinator"})
	}
	return allPart{Figures: figs, Body: b.String(), Result: res, Reproduce: []string{
		fmt.Sprintf("bin/yakor bench load --distributed --conversations %d --turns %d", one.Conversations, one.TurnsPerConversation),
		"bin/yakor bench all --only distributed"}}
}
