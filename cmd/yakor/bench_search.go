package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/account"
	"yakor/history"
	"yakor/search"
)

// runBenchSearch measures one history search with many messages in the
// database: threads of benchThreadSize messages plus one thread of
// --big messages, filled with text from a Zipf-distributed vocabulary, and
// queries of two or three mid-frequency words (what a model picks) plus,
// half the time, a common one. The data is kept in the bench folder and
// reused by the next run of the same size.
func runBenchSearch(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlagSet("bench search", stderr)
	total := fs.Int("messages", 1_000_000, "messages in the database")
	big := fs.Int("big", 100_000, "messages in the one big thread")
	queries := fs.Int("queries", 500, "searches measured on the big thread and on small threads each")
	benchDir := fs.String("bench-dir", "./.yakor-bench", "private cluster folder for the benchmark (used without DATABASE_URL)")
	cfg, err := parseConfig(fs, args, getenv)
	if err != nil {
		return err
	}
	cfg.DataDir = *benchDir
	if *big > *total || *total <= 0 {
		return errors.New("bench search: --big must be at most --messages")
	}
	db, log, err := openBenchDatabase(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer db.close(log)

	corpus := newZipfCorpus(42)
	loadStart := time.Now()
	bigScope, small, err := loadSearchCorpus(ctx, db, corpus, *total, *big, stderr)
	if err != nil {
		return err
	}
	loadTook := time.Since(loadStart)

	searcher := search.NewSearcher(db.pool)
	rng := rand.New(rand.NewPCG(7, 7))
	measure := func(pick func() yakor.Scope) ([]float64, float64, error) {
		var took []float64
		hits := 0
		for i := range *queries + 20 {
			scope := pick()
			res, err := searcher.Search(ctx, scope, corpus.query(rng), search.Options{})
			if err != nil {
				return nil, 0, err
			}
			if i >= 20 { // warm-up
				took = append(took, float64(res.Took.Microseconds())/1000)
				hits += len(res.Hits)
			}
		}
		slices.Sort(took)
		return took, float64(hits) / float64(*queries), nil
	}
	bigT, bigHits, err := measure(func() yakor.Scope { return bigScope })
	if err != nil {
		return err
	}
	smallT, smallHits, err := measure(func() yakor.Scope { return small[rng.IntN(len(small))] })
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "yakor bench search: %d messages in the database (%d threads; one of %d), %d queries each, default budget %d chars (loaded in %v)\n\n",
		*total, len(small)+1, *big, *queries, search.DefaultBudget, loadTook.Round(time.Second))
	fmt.Fprintln(stdout, "| thread | messages in thread | p50 | p95 | p99 | max | hits per search |")
	fmt.Fprintln(stdout, "|---|---|---|---|---|---|---|")
	fmt.Fprintf(stdout, "| big | %d | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.1f |\n", *big, pct(bigT, 50), pct(bigT, 95), pct(bigT, 99), bigT[len(bigT)-1], bigHits)
	fmt.Fprintf(stdout, "| small (random) | %d | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.1f |\n", (*total-*big)/max(1, len(small)), pct(smallT, 50), pct(smallT, 95), pct(smallT, 99), smallT[len(smallT)-1], smallHits)
	return nil
}

// benchThreadSize is the size of the small threads of the search benchmark.
const benchThreadSize = 900

// loadSearchCorpus returns the scopes of the benchmark's big thread and
// small threads, loading them first unless a tenant named for this size
// already holds them.
func loadSearchCorpus(ctx context.Context, db *database, corpus *zipfCorpus, total, big int, stderr io.Writer) (yakor.Scope, []yakor.Scope, error) {
	name := fmt.Sprintf("bench-search-%d-%d", total, big)
	var tenant, user string
	err := db.pool.QueryRow(ctx, `SELECT t.id::text, u.id::text FROM tenants t JOIN users u ON u.tenant_id = t.id WHERE t.name = $1`, name).Scan(&tenant, &user)
	if err == nil {
		scopes, err := benchThreads(ctx, db, yakor.Scope{TenantID: tenant, UserID: user})
		if err == nil && len(scopes) > 1 {
			fmt.Fprintf(stderr, "bench search: reusing %s\n", name)
			return scopes[0], scopes[1:], nil
		}
	} else if !errors.Is(err, pgx.ErrNoRows) {
		return yakor.Scope{}, nil, err
	}
	_, _ = db.pool.Exec(ctx, `DELETE FROM tenants WHERE name = $1`, name)
	scope, err := account.NewStore(db.pool).CreateTenantUser(ctx, name)
	if err != nil {
		return yakor.Scope{}, nil, err
	}
	hist := history.NewStore(db.pool)
	rng := rand.New(rand.NewPCG(1, uint64(total)))
	sizes := []int{big}
	for left := total - big; left > 0; left -= benchThreadSize {
		sizes = append(sizes, min(benchThreadSize, left))
	}
	loaded := 0
	for i, n := range sizes {
		th, err := hist.CreateThread(ctx, scope, history.ThreadCreate{Title: fmt.Sprintf("bench %d", i)})
		if err != nil {
			return yakor.Scope{}, nil, err
		}
		ts := scope.WithThread(th.ID)
		for done := 0; done < n; done += 10_000 {
			msgs := make([]history.NewMessage, min(10_000, n-done))
			for j := range msgs {
				role := history.RoleUser
				if j%2 == 1 {
					role = history.RoleAssistant
				}
				msgs[j] = history.NewMessage{Role: role, Content: corpus.message(rng)}
			}
			if _, err := hist.Import(ctx, ts, msgs); err != nil {
				return yakor.Scope{}, nil, err
			}
			loaded += len(msgs)
		}
		if i%50 == 0 {
			fmt.Fprintf(stderr, "bench search: loaded %d of %d messages\n", loaded, total)
		}
	}
	if _, err := db.pool.Exec(ctx, `ANALYZE messages`); err != nil {
		return yakor.Scope{}, nil, err
	}
	scopes, err := benchThreads(ctx, db, scope)
	if err != nil {
		return yakor.Scope{}, nil, err
	}
	return scopes[0], scopes[1:], nil
}

// benchThreads lists the tenant's threads, the biggest first.
func benchThreads(ctx context.Context, db *database, scope yakor.Scope) ([]yakor.Scope, error) {
	rows, err := db.pool.Query(ctx, `SELECT id::text FROM threads WHERE tenant_id = $1 ORDER BY message_count DESC, id`, scope.TenantID)
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

// zipfCorpus makes text from a vocabulary whose word frequencies follow
// Zipf's law, as natural language does.
type zipfCorpus struct {
	words []string
	zipf  *rand.Zipf
}

func newZipfCorpus(seed uint64) *zipfCorpus {
	rng := rand.New(rand.NewPCG(seed, seed))
	syl := strings.Fields("ka ro mi te lu sa po ne vi da ko re na to li mo ру ка ло ми те ва до ре на ти ко ли ст пр ол ен")
	seen := map[string]bool{}
	var words []string
	for len(words) < 50_000 {
		var b strings.Builder
		for range 2 + rng.IntN(3) {
			b.WriteString(syl[rng.IntN(len(syl))])
		}
		if w := b.String(); !seen[w] && len([]rune(w)) >= 4 {
			seen[w] = true
			words = append(words, w)
		}
	}
	return &zipfCorpus{words: words, zipf: rand.NewZipf(rand.New(rand.NewPCG(seed, 1)), 1.07, 1, uint64(len(words)-1))}
}

// message is 8–60 words, sometimes with a number.
func (c *zipfCorpus) message(rng *rand.Rand) string {
	n := 8 + rng.IntN(53)
	parts := make([]string, 0, n+1)
	for range n {
		parts = append(parts, c.words[c.zipf.Uint64()])
	}
	if rng.IntN(4) == 0 {
		parts = append(parts, fmt.Sprint(100+rng.IntN(100_000)))
	}
	return strings.Join(parts, " ")
}

// query is two or three words of middling frequency (ranks 200–20,000),
// and half the time a common one (rank < 200).
func (c *zipfCorpus) query(rng *rand.Rand) string {
	var parts []string
	for range 2 + rng.IntN(2) {
		parts = append(parts, c.words[200+rng.IntN(19_800)])
	}
	if rng.IntN(2) == 0 {
		parts = append(parts, c.words[rng.IntN(200)])
	}
	return strings.Join(parts, " ")
}
