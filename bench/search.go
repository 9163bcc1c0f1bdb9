package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/app"
	"yakor/search"
)

// runBenchSearch measures one history search with many messages in the
// database: threads of benchThreadSize messages plus one thread of
// --big messages, filled with text from a Zipf-distributed vocabulary, and
// queries of two or three mid-frequency words (what a model picks) plus,
// half the time, a common one. The messages are loaded into a database of
// their own beside the benchmark's, which is kept and reused by the next
// run of the same size.
func runBenchSearch(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlagSet("search", args, stdout, stderr)
	total := fs.Int("messages", 1_000_000, "messages in the database")
	big := fs.Int("big", 100_000, "messages in the one big thread")
	queries := fs.Int("queries", 500, "searches measured on the big thread and on small threads each")
	fresh := fs.Bool("fresh", false, "load the messages again even when an earlier run left them")
	cfg, err := parseFlags(fs, args, getenv)
	if err != nil {
		return err
	}
	if *big > *total || *total <= 0 || *queries <= 0 {
		return errors.New("bench search: --big must be at most --messages, and --queries positive")
	}
	db, log, err := openDatabase(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer db.Close()
	r, err := benchSearch(ctx, db, cfg, log, *total, *big, *queries, *fresh, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "yakor bench search: %d messages in the database (%d threads; one of %d), %d queries each, default budget %d chars (%s)\n\n",
		r.Messages, r.Threads, r.Big, r.Queries, search.DefaultBudget, r.Load.describe())
	fmt.Fprintln(stdout, "| thread | messages in thread | p50 | p95 | p99 | max | hits per search |")
	fmt.Fprintln(stdout, "|---|---|---|---|---|---|---|")
	for _, t := range []searchThreads{r.BigThread, r.SmallThreads} {
		fmt.Fprintf(stdout, "| %s | %d | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.1f |\n", t.Name, t.Messages, t.P50, t.P95, t.P99, t.Max, t.Hits)
	}
	return nil
}

// searchResult is one run of the search benchmark.
type searchResult struct {
	Messages     int           `json:"messages"` // in the database
	Threads      int           `json:"threads"`
	Big          int           `json:"big"` // messages of the big thread
	Queries      int           `json:"queries"`
	BigThread    searchThreads `json:"big_thread"`
	SmallThreads searchThreads `json:"small_threads"`
	Load         corpusLoad    `json:"load"`
	// PrewarmSeconds is the reading of the corpus into the cache before
	// the searches (0: not prewarmed).
	PrewarmSeconds float64 `json:"prewarm_seconds"`
}

// searchThreads is the latency of searches in one kind of thread, ms.
type searchThreads struct {
	Name     string  `json:"name"`
	Messages int     `json:"messages"` // in one such thread
	P50      float64 `json:"p50_ms"`
	P95      float64 `json:"p95_ms"`
	P99      float64 `json:"p99_ms"`
	Max      float64 `json:"max_ms"`
	Hits     float64 `json:"hits_per_search"`
}

// benchSearch loads (or reuses) the corpus of total messages and measures
// queries searches on its big thread and as many on its small ones.
func benchSearch(ctx context.Context, db *database, cfg app.Config, log *slog.Logger, total, big, queries int, fresh bool, stderr io.Writer) (searchResult, error) {
	c, err := openSearchCorpus(ctx, db, log, total, big, fresh, nil, stderr)
	if err != nil {
		return searchResult{}, err
	}
	defer c.db.Close()
	return c.measure(ctx, cfg, log, queries, stderr)
}

// searchCorpus is the search benchmark's loaded corpus, its database open.
type searchCorpus struct {
	db         *database
	words      *zipfCorpus
	total, big int
	bigScope   yakor.Scope
	small      []yakor.Scope
	load       *corpusLoad // final once its pipeline's wait returns
}

// measure runs queries searches on the big thread and as many on random
// small threads, with history search as app.New builds it from cfg, as the
// service role under row-level security, as yakor serve runs it (without
// the semantic leg: the corpus has no embeddings).
func (c *searchCorpus) measure(ctx context.Context, cfg app.Config, log *slog.Logger, queries int, stderr io.Writer) (searchResult, error) {
	cfg.SearchSemantic = false
	a, err := newApp(ctx, cfg, log, c.db.Database, app.WithLocalScope(c.bigScope), app.WithInlineJobs())
	if err != nil {
		return searchResult{}, err
	}
	r := searchResult{Messages: c.total, Threads: len(c.small) + 1, Big: c.big, Queries: queries, Load: *c.load}
	start := time.Now()
	if err := c.prewarm(ctx); err != nil {
		fmt.Fprintf(stderr, "bench search: not prewarmed (%v): searches of threads not read yet read the disk\n", err)
	} else {
		r.PrewarmSeconds = time.Since(start).Seconds()
	}
	fmt.Fprintf(stderr, "bench search: %d messages: %d queries on the big thread, %d on small ones…\n", c.total, queries, queries)
	rng := rand.New(rand.NewPCG(7, 7))
	measure := func(name string, size int, pick func() yakor.Scope) (searchThreads, error) {
		var took samples
		var slow slowest
		hits := 0
		for i := range queries + 20 {
			scope, q := pick(), c.words.query(rng)
			res, err := a.Searcher.Search(yakor.WithTenant(ctx, scope.TenantID), scope, q, search.Options{})
			if err != nil {
				return searchThreads{}, err
			}
			if i >= 20 { // warm-up
				took.add(ms(res.Took))
				hits += len(res.Hits)
				slow.add(ms(res.Took), fmt.Sprintf("%q (%d hits)", q, len(res.Hits)))
			}
		}
		fmt.Fprintf(stderr, "bench search: %s thread: the slowest searches: %s\n", name, slow)
		return searchThreads{Name: name, Messages: size, P50: took.pct(50), P95: took.pct(95), P99: took.pct(99), Max: took.max(),
			Hits: float64(hits) / float64(queries)}, nil
	}
	if r.BigThread, err = measure("big", c.big, func() yakor.Scope { return c.bigScope }); err != nil {
		return r, err
	}
	smallSize := (c.total - c.big) / max(1, len(c.small))
	if r.SmallThreads, err = measure("small (random)", smallSize, func() yakor.Scope { return c.small[rng.IntN(len(c.small))] }); err != nil {
		return r, err
	}
	return r, nil
}

// prewarm reads the messages table and its indexes into the server's
// shared buffers when they fit in four fifths of them, else into the
// system's cache (pg_prewarm), as on a server whose memory holds them:
// searches of random threads then measure the search, not the disk,
// whether the corpus was loaded just now (and so is cached) or by an
// earlier run.
func (c *searchCorpus) prewarm(ctx context.Context) error {
	if _, err := c.db.Owner.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pg_prewarm`); err != nil {
		return err
	}
	if c.db.distributed() {
		// The rows are on the workers: each shard of messages, there.
		_, err := c.db.Owner.Exec(ctx, `SELECT run_command_on_shards('messages', $cmd$SELECT pg_prewarm('%s', 'read')$cmd$)`)
		return err
	}
	_, err := c.db.Owner.Exec(ctx, `WITH rels AS (
    SELECT 'messages'::regclass AS r
    UNION ALL SELECT indexrelid::regclass FROM pg_index WHERE indrelid = 'messages'::regclass
), how AS (
    SELECT CASE WHEN sum(pg_relation_size(r)) < 0.8 * pg_size_bytes(current_setting('shared_buffers')) THEN 'buffer' ELSE 'read' END AS mode
    FROM rels
)
SELECT pg_prewarm(r, mode) FROM rels, how`)
	return err
}

// benchThreadSize is the size of the small threads of the search benchmark.
const benchThreadSize = 900

// openSearchCorpus opens the database of the search corpus of total
// messages (a big thread of big, the rest in threads of benchThreadSize),
// loading it first unless an earlier run did (or fresh is set), through
// pipe when it is not nil (see loadCorpus).
func openSearchCorpus(ctx context.Context, db *database, log *slog.Logger, total, big int, fresh bool, pipe *loadPipeline, stderr io.Writer) (*searchCorpus, error) {
	words := newZipfCorpus(42)
	name := db.siblingName(fmt.Sprintf("search_%d_%d", total, big))
	sizes := []int{big}
	for left := total - big; left > 0; left -= benchThreadSize {
		sizes = append(sizes, min(benchThreadSize, left))
	}
	load, sdb, scope, err := loadCorpus(ctx, db, log, name, fresh, pipe, stderr, func(ctx context.Context, sdb *database, scope yakor.Scope) ([]copyJob, error) {
		threads, err := createBenchThreads(ctx, sdb.Owner, scope, len(sizes), "bench")
		if err != nil {
			return nil, err
		}
		jobs := make([]copyJob, len(sizes))
		for i, n := range sizes {
			jobs[i] = copyJob{scope: threads[i], count: n, next: words.stream(uint64(i))}
		}
		return jobs, nil
	})
	if err != nil {
		return nil, err
	}
	scopes, err := benchThreads(ctx, sdb, scope)
	if err == nil && len(scopes) < 2 {
		err = fmt.Errorf("bench search: %s holds %d threads", name, len(scopes))
	}
	if err != nil {
		sdb.Close()
		return nil, err
	}
	return &searchCorpus{db: sdb, words: words, total: total, big: big, bigScope: scopes[0], small: scopes[1:], load: load}, nil
}

// benchThreads lists the tenant's threads, the biggest first.
func benchThreads(ctx context.Context, db *database, scope yakor.Scope) ([]yakor.Scope, error) {
	rows, err := db.Owner.Query(ctx, `SELECT id::text FROM threads WHERE tenant_id = $1 ORDER BY message_count DESC, id`, scope.TenantID)
	if err != nil {
		return nil, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	out := make([]yakor.Scope, len(ids))
	for i, id := range ids {
		out[i] = scope.WithThread(id)
	}
	return out, nil
}
