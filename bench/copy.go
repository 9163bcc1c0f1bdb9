package bench

// Bulk loading for the benchmarks: threads made in one statement, messages
// written with COPY on the owner's pool (row-level security refuses COPY to
// the service role, not to the tables' owner), several streams at once, and
// the secondary indexes of messages built after the load rather than kept
// up to date row by row. The loaded rows are what history.Import writes: the
// database computes chars, folded and tsv itself.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"yakor"
	"yakor/account"
	"yakor/history"
)

// createBenchThreads makes n threads of scope's user in one statement and
// returns their scopes in order; title is followed by each one's number.
func createBenchThreads(ctx context.Context, pool *pgxpool.Pool, scope yakor.Scope, n int, title string) ([]yakor.Scope, error) {
	ids := make([]string, n)
	titles := make([]string, n)
	out := make([]yakor.Scope, n)
	for i := range ids {
		ids[i], titles[i] = uuid.NewString(), fmt.Sprintf("%s %d", title, i)
		out[i] = scope.WithThread(ids[i])
	}
	const q = `INSERT INTO threads (tenant_id, user_id, id, title)
SELECT $1, $2, t.id, t.title FROM unnest($3::uuid[], $4::text[]) AS t(id, title)`
	if _, err := pool.Exec(ctx, q, scope.TenantID, scope.UserID, ids, titles); err != nil {
		return nil, fmt.Errorf("create threads: %w", err)
	}
	return out, nil
}

// copyJob is the messages of one thread a loader writes: count of them,
// each text from next (the thread's own generator), roles alternating from
// the user's.
type copyJob struct {
	scope yakor.Scope
	count int
	next  func() string
}

// copyMessages writes the jobs' messages with COPY over streams connections
// at once (0: one per core), each job's messages in order within one
// stream, then sets each thread's message count as Import would. A thread
// split into several jobs (splitJob) is written by several streams at once:
// its jobs' messages interleave. progress, when not nil, is called with the
// number of messages written so far every few seconds. Each job holds one
// of slots (nil: no limit) while it is written.
func copyMessages(ctx context.Context, pool *pgxpool.Pool, jobs []copyJob, streams int, slots *cpuSlots, progress func(done int)) error {
	if streams <= 0 {
		streams = runtime.GOMAXPROCS(0)
	}
	var done, next atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	for range min(streams, len(jobs)) {
		g.Go(func() error { return copyStream(gctx, pool, jobs, slots, &next, &done) })
	}
	stop := make(chan struct{})
	ticked := make(chan struct{})
	go func() {
		defer close(ticked)
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if progress != nil {
					progress(int(done.Load()))
				}
			}
		}
	}()
	err := g.Wait()
	close(stop)
	<-ticked
	if err != nil {
		return err
	}
	// A thread's messages may come in several jobs.
	var ids []string
	var counts []int64
	at := map[string]int{}
	for _, j := range jobs {
		i, ok := at[j.scope.ThreadID]
		if !ok {
			i = len(ids)
			at[j.scope.ThreadID] = i
			ids, counts = append(ids, j.scope.ThreadID), append(counts, 0)
		}
		counts[i] += int64(j.count)
	}
	const q = `UPDATE threads t SET message_count = t.message_count + c.n, updated_at = now()
FROM unnest($2::uuid[], $3::bigint[]) AS c(id, n) WHERE t.tenant_id = $1 AND t.id = c.id`
	tenant := ""
	if len(jobs) > 0 {
		tenant = jobs[0].scope.TenantID
	}
	if _, err := pool.Exec(ctx, q, tenant, ids, counts); err != nil {
		return fmt.Errorf("count loaded messages: %w", err)
	}
	return nil
}

// splitJob is a thread of n messages as parts jobs of about n/parts
// messages each, part i's text from gen(i), for a thread too big for one
// stream to write while the others wait.
func splitJob(scope yakor.Scope, n, parts int, gen func(part int) func() string) []copyJob {
	parts = max(1, min(parts, n))
	out := make([]copyJob, parts)
	for i := range out {
		out[i] = copyJob{scope: scope, count: n*(i+1)/parts - n*i/parts, next: gen(i)}
	}
	return out
}

// copyStream takes jobs off the shared queue and writes each with one COPY
// on its own connection, until none is left.
func copyStream(ctx context.Context, pool *pgxpool.Pool, jobs []copyJob, slots *cpuSlots, next, done *atomic.Int64) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	// The threads exist: the foreign key's check of each row is skipped
	// where the server allows it (a superuser's session), and commits do
	// not wait for the disk.
	if _, err := conn.Exec(ctx, `SET synchronous_commit = off`); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, `SET session_replication_role = replica`); err == nil {
		defer conn.Exec(context.Background(), `RESET session_replication_role`) //nolint:errcheck
	}
	defer conn.Exec(context.Background(), `RESET synchronous_commit`) //nolint:errcheck
	cols := []string{"tenant_id", "user_id", "thread_id", "role", "content"}
	for {
		i := int(next.Add(1) - 1)
		if i >= len(jobs) {
			return nil
		}
		j := jobs[i]
		// pgtype.UUID is encoded as it is; a uuid.UUID would go through
		// its driver.Valuer, a string, for every row.
		tenant := pgtype.UUID{Bytes: uuid.MustParse(j.scope.TenantID), Valid: true}
		user := pgtype.UUID{Bytes: uuid.MustParse(j.scope.UserID), Valid: true}
		thread := pgtype.UUID{Bytes: uuid.MustParse(j.scope.ThreadID), Valid: true}
		n := 0
		src := pgx.CopyFromFunc(func() ([]any, error) {
			if n == j.count {
				return nil, nil
			}
			role := history.RoleUser
			if n%2 == 1 {
				role = history.RoleAssistant
			}
			n++
			if n%1000 == 0 {
				done.Add(1000)
			}
			return []any{tenant, user, thread, string(role), j.next()}, nil
		})
		if err := slots.acquire(ctx, slotWork); err != nil {
			return err
		}
		_, err := conn.CopyFrom(ctx, pgx.Identifier{"messages"}, cols, src)
		slots.release()
		if err != nil {
			return fmt.Errorf("copy messages: %w", err)
		}
		done.Add(int64(n % 1000))
	}
}

// messageIndex is a secondary index of messages, by its definition.
type messageIndex struct{ name, def string }

// dropMessageIndexes drops the secondary indexes of messages (the primary
// key stays: other tables' foreign keys need it) and returns their
// definitions for buildIndexes.
func dropMessageIndexes(ctx context.Context, pool *pgxpool.Pool) ([]messageIndex, error) {
	rows, err := pool.Query(ctx, `SELECT c.relname, pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = 'messages'::regclass AND NOT i.indisprimary ORDER BY c.relname`)
	if err != nil {
		return nil, err
	}
	idx, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (messageIndex, error) {
		var m messageIndex
		return m, r.Scan(&m.name, &m.def)
	})
	if err != nil {
		return nil, err
	}
	for _, m := range idx {
		if _, err := pool.Exec(ctx, `DROP INDEX `+pgx.Identifier{m.name}.Sanitize()); err != nil {
			return nil, err
		}
	}
	return idx, nil
}

// indexMemory is the memory each index build may use: GIN builds sort their
// entries in it, and a build that fits writes its index once.
const indexMemory = "1GB"

// buildIndexes builds idx over streams sessions at once (PostgreSQL builds
// one GIN index on one core: the parallelism is between indexes), the
// costliest first, each holding one of slots (nil: no limit) while it
// builds; log is told when each is built.
func buildIndexes(ctx context.Context, pool *pgxpool.Pool, idx []messageIndex, streams int, slots *cpuSlots, log io.Writer) ([]indexBuild, error) {
	idx = slices.Clone(idx)
	slices.SortStableFunc(idx, func(a, b messageIndex) int { return indexCost(b) - indexCost(a) })
	builds := make([]indexBuild, len(idx))
	if streams <= 0 {
		streams = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var logMu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	for range min(streams, len(idx)) {
		g.Go(func() error {
			conn, err := pool.Acquire(gctx)
			if err != nil {
				return err
			}
			defer conn.Release()
			defer conn.Exec(context.Background(), `RESET maintenance_work_mem; RESET max_parallel_maintenance_workers`) //nolint:errcheck
			if _, err := conn.Exec(gctx, `SET maintenance_work_mem = '`+indexMemory+`'; SET max_parallel_maintenance_workers = 0`); err != nil {
				return err
			}
			for {
				i := int(next.Add(1) - 1)
				if i >= len(idx) {
					return nil
				}
				if err := slots.acquire(gctx, slotFinish); err != nil {
					return err
				}
				start := time.Now()
				_, err := conn.Exec(gctx, idx[i].def)
				slots.release()
				if err != nil {
					return fmt.Errorf("build %s: %w", idx[i].name, err)
				}
				builds[i] = indexBuild{Name: idx[i].name, Seconds: time.Since(start).Seconds()}
				logMu.Lock()
				fmt.Fprintf(log, "bench: built index %s in %.1f s\n", idx[i].name, builds[i].Seconds)
				logMu.Unlock()
			}
		})
	}
	err := g.Wait()
	return builds, err
}

// corpusLoad is how a benchmark's corpus came to be in its database.
type corpusLoad struct {
	Reused        bool         `json:"reused"` // loaded by an earlier run
	Messages      int          `json:"messages"`
	CopySeconds   float64      `json:"copy_seconds"`
	IndexSeconds  float64      `json:"index_seconds"` // all the builds, end to end
	Indexes       []indexBuild `json:"indexes"`
	VacuumSeconds float64      `json:"vacuum_seconds"` // VACUUM (FREEZE, ANALYZE)
	TotalSeconds  float64      `json:"total_seconds"`
	DatabaseBytes int64        `json:"database_bytes"`
}

// indexBuild is one index's build.
type indexBuild struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

// describe says how the corpus was loaded, in a few words.
func (l corpusLoad) describe() string {
	earlier := ""
	if l.Reused {
		earlier = " by an earlier run"
	}
	return fmt.Sprintf("loaded"+earlier+" in %.0f s: COPY %.0f s, indexes %.0f s, vacuum %.0f s; %.1f GB",
		l.TotalSeconds, l.CopySeconds, l.IndexSeconds, l.VacuumSeconds, float64(l.DatabaseBytes)/1e9)
}

// corpusTenant names the tenant of a loaded corpus.
const corpusTenant = "bench corpus"

// loadCorpus opens the sibling database name and, unless an earlier run
// loaded it (and fresh is not set), loads it: a tenant, plan's threads and
// messages written with COPY, the secondary indexes built after them, then
// VACUUM (FREEZE, ANALYZE), as a table long in use would be, and marks it
// complete. It returns the corpus's load, the database and the tenant's
// scope. With a pipeline, loadCorpus returns once the rows are written and
// the pipeline builds the indexes, vacuums and marks the corpus beside
// what runs next: the load's figures are final and the database whole when
// the pipeline's wait returns.
func loadCorpus(ctx context.Context, db *database, log *slog.Logger, name string, fresh bool, pipe *loadPipeline, stderr io.Writer,
	plan func(ctx context.Context, sdb *database, scope yakor.Scope) ([]copyJob, error)) (*corpusLoad, *database, yakor.Scope, error) {
	start := time.Now()
	load := &corpusLoad{}
	sdb, done, err := db.openSibling(ctx, name, fresh, log)
	if err != nil {
		return nil, nil, yakor.Scope{}, err
	}
	fail := func(err error) (*corpusLoad, *database, yakor.Scope, error) {
		sdb.Close()
		return nil, nil, yakor.Scope{}, err
	}
	var scope yakor.Scope
	if done != "" {
		if scope, err = reuseCorpus(ctx, sdb, done, load); err == nil {
			fmt.Fprintf(stderr, "bench: reusing database %s (%d messages, loaded by an earlier run in %.0f s)\n", name, load.Messages, load.TotalSeconds)
			return load, sdb, scope, nil
		}
	}
	if !fresh {
		// Not reused: whatever an interrupted load left goes first.
		sdb.Close()
		if sdb, _, err = db.openSibling(ctx, name, true, log); err != nil {
			return nil, nil, yakor.Scope{}, err
		}
	}
	*load = corpusLoad{}
	if scope, err = account.NewStore(sdb.Owner).CreateTenantUser(ctx, corpusTenant); err != nil {
		return fail(err)
	}
	jobs, err := plan(ctx, sdb, scope)
	if err != nil {
		return fail(err)
	}
	for _, j := range jobs {
		load.Messages += j.count
	}
	idx, err := dropMessageIndexes(ctx, sdb.Owner)
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stderr, "bench: loading %d messages into %s…\n", load.Messages, name)
	t := time.Now()
	err = copyMessages(ctx, sdb.Owner, jobs, 0, pipe.slotsOf(), func(done int) {
		fmt.Fprintf(stderr, "bench: %s: %d of %d messages written (%.0f s)\n", name, done, load.Messages, time.Since(t).Seconds())
	})
	if err != nil {
		return fail(err)
	}
	load.CopySeconds = time.Since(t).Seconds()
	fmt.Fprintf(stderr, "bench: %s: %d messages written in %.0f s; building %d indexes…\n", name, load.Messages, load.CopySeconds, len(idx))
	finish := func(ctx context.Context) error {
		return finishCorpus(ctx, db, sdb, name, idx, load, start, pipe.slotsOf(), stderr)
	}
	if pipe == nil {
		if err := finish(ctx); err != nil {
			return fail(err)
		}
		return load, sdb, scope, nil
	}
	pipe.copyDone()
	pipe.finish(func(ctx context.Context) error {
		if err := finish(ctx); err != nil {
			return fmt.Errorf("load %s: %w", name, err)
		}
		return nil
	})
	return load, sdb, scope, nil
}

// reuseCorpus reads what an earlier run's load of sdb took (done, its
// completion mark) into load, and the corpus's tenant.
func reuseCorpus(ctx context.Context, sdb *database, done string, load *corpusLoad) (yakor.Scope, error) {
	var scope yakor.Scope
	err := json.Unmarshal([]byte(done), load)
	if err == nil {
		err = sdb.Owner.QueryRow(ctx, `SELECT t.id::text, u.id::text FROM tenants t JOIN users u ON u.tenant_id = t.id WHERE t.name = $1`,
			corpusTenant).Scan(&scope.TenantID, &scope.UserID)
	}
	load.Reused = err == nil
	return scope, err
}

// finishCorpus builds the indexes of the corpus sdb (db's sibling name),
// whose load began at start, then vacuums it as a table long in use would
// be, each step holding one of slots, fills in load and marks the corpus
// complete.
func finishCorpus(ctx context.Context, db, sdb *database, name string, idx []messageIndex, load *corpusLoad, start time.Time, slots *cpuSlots, stderr io.Writer) error {
	t := time.Now()
	var err error
	if load.Indexes, err = buildIndexes(ctx, sdb.Owner, idx, 0, slots, stderr); err != nil {
		return err
	}
	load.IndexSeconds = time.Since(t).Seconds()
	if err := slots.acquire(ctx, slotFinish); err != nil {
		return err
	}
	t = time.Now()
	_, err = sdb.Owner.Exec(ctx, `VACUUM (FREEZE, ANALYZE)`)
	slots.release()
	if err != nil {
		return err
	}
	load.VacuumSeconds = time.Since(t).Seconds()
	if err := sdb.Owner.QueryRow(ctx, `SELECT pg_database_size(current_database())`).Scan(&load.DatabaseBytes); err != nil {
		return err
	}
	load.TotalSeconds = time.Since(start).Seconds()
	mark, err := json.Marshal(load)
	if err != nil {
		return err
	}
	if err := db.markComplete(ctx, name, string(mark)); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "bench: %s: %s\n", name, load.describe())
	return nil
}

// indexCost orders index builds: GIN first (the index of each thread's
// words is the costliest), then the rest.
func indexCost(m messageIndex) int {
	switch {
	case strings.Contains(m.def, "yakor_thread_words"):
		return 3
	case strings.Contains(m.def, "USING gin"):
		return 2
	case strings.Contains(m.def, " WHERE "):
		return 0
	}
	return 1
}
