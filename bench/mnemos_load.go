package bench

// Loading the experiences yakor bench mnemos measures, and the plan and
// accuracy checks of the recall query.

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"yakor"
	"yakor/account"
	"yakor/mnemos"
	"yakor/words"
)

// mnemosLoaded is what loadMnemos stored.
type mnemosLoaded struct {
	scopes                    []yakor.Scope
	total, measured           [4]int
	sample                    []mnemosQ // L1 questions of the measured tenant
	took, copyTook, indexTook time.Duration
	vacuumTook                time.Duration
	strategy                  string
}

// loadMnemos creates the tenants and loads their experiences. Unless told
// to keep them, or other rows of the space use them, the space's HNSW
// indexes are dropped first and built again afterwards, with the very
// definitions they had: one bulk build is much faster than as many inserts
// into the graph.
func loadMnemos(ctx context.Context, db *database, space *mnemos.Space, gen *mnemosGen, o mnemosOptions, stderr io.Writer) (*mnemosLoaded, error) {
	start := time.Now()
	ld := &mnemosLoaded{}
	spaceID, _, err := space.ID(ctx)
	if err != nil {
		return nil, err
	}
	accounts := account.NewStore(db.Owner)
	for t := range o.tenants {
		s, err := accounts.CreateTenantUser(ctx, fmt.Sprintf("bench-mnemos-%d", t))
		if err != nil {
			return ld, err
		}
		ld.scopes = append(ld.scopes, s)
	}
	defs, rebuild, err := mnemosDropIndexes(ctx, db, spaceID, o, ld)
	if rebuild {
		// Whatever happens, the indexes are there again afterwards.
		defer func() {
			for _, d := range defs {
				_, _ = db.Owner.Exec(context.WithoutCancel(ctx), strings.Replace(d.def, "CREATE INDEX ", "CREATE INDEX IF NOT EXISTS ", 1))
			}
		}()
	}
	if err != nil {
		return ld, err
	}
	copyStart := time.Now()
	for t, scope := range ld.scopes {
		n1 := o.entries / o.tenants
		if t == 0 {
			n1 += o.entries % o.tenants
		}
		levels := [4]int{0, n1, (n1 + 50) / 100, (n1 + 25) / 50}
		rng := rand.New(rand.NewPCG(uint64(t), 3))
		if err := copyMnemos(ctx, db, space, gen, rng, scope, levels, t == 0, ld, stderr); err != nil {
			return ld, err
		}
		for l := 1; l <= 3; l++ {
			ld.total[l] += levels[l]
			ld.total[0] += levels[l]
			if t == 0 {
				ld.measured[l] = levels[l]
				ld.measured[0] += levels[l]
			}
		}
	}
	ld.copyTook = time.Since(copyStart)
	fmt.Fprintf(stderr, "bench mnemos: %d experiences copied in %v\n", ld.total[0], ld.copyTook.Round(time.Millisecond))
	if rebuild {
		if err := mnemosBuildIndexes(ctx, db, spaceID, defs, o.workMem, ld, stderr); err != nil {
			return ld, err
		}
	}
	// VACUUM too, as a table in steady state would be: an autovacuum of
	// the fresh rows would otherwise run during the measurements.
	vacuumStart := time.Now()
	if _, err := db.Owner.Exec(ctx, `VACUUM (ANALYZE) experiences`); err != nil {
		return ld, err
	}
	ld.vacuumTook = time.Since(vacuumStart)
	ld.took = time.Since(start)
	return ld, nil
}

// mnemosDropIndexes reads the space's three HNSW indexes on experiences and
// drops them unless o says to keep them or other rows of the space use
// them; rebuild says whether it dropped them. It says in ld which.
func mnemosDropIndexes(ctx context.Context, db *database, spaceID int32, o mnemosOptions, ld *mnemosLoaded) (defs []mnemosIndexDef, rebuild bool, err error) {
	if defs, err = mnemosIndexDefs(ctx, db, spaceID); err != nil {
		return nil, false, err
	}
	if len(defs) != 3 {
		return nil, false, fmt.Errorf("bench mnemos: space %d has %d HNSW indexes on experiences, want 3", spaceID, len(defs))
	}
	var others int
	if err := db.Owner.QueryRow(ctx, `SELECT count(*) FROM experiences WHERE space_id = $1`, spaceID).Scan(&others); err != nil {
		return nil, false, err
	}
	switch {
	case o.withIndex:
		ld.strategy = "kept during the load (--load-with-index)"
		return defs, false, nil
	case others > 0:
		ld.strategy = fmt.Sprintf("kept during the load (%d rows of other tenants use them)", others)
		return defs, false, nil
	}
	ld.strategy = "dropped, built after the load with maintenance_work_mem " + o.workMem
	for _, d := range defs {
		if _, err := db.Owner.Exec(ctx, `DROP INDEX `+pgx.Identifier{d.name}.Sanitize()); err != nil {
			return defs, true, err
		}
	}
	return defs, true, nil
}

// mnemosBuildIndexes builds the dropped indexes defs again, with workMem,
// and checks they are as they were.
func mnemosBuildIndexes(ctx context.Context, db *database, spaceID int32, defs []mnemosIndexDef, workMem string, ld *mnemosLoaded, stderr io.Writer) error {
	indexStart := time.Now()
	conn, err := db.Owner.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT set_config('maintenance_work_mem', $1, false)`, workMem); err != nil {
		return err
	}
	for _, d := range defs {
		t := time.Now()
		if _, err := conn.Exec(ctx, d.def); err != nil {
			return fmt.Errorf("bench mnemos: rebuild %s: %w", d.name, err)
		}
		fmt.Fprintf(stderr, "bench mnemos: built %s in %v\n", d.name, time.Since(t).Round(time.Millisecond))
	}
	if _, err := conn.Exec(ctx, `RESET maintenance_work_mem`); err != nil {
		return err
	}
	ld.indexTook = time.Since(indexStart)
	after, err := mnemosIndexDefs(ctx, db, spaceID)
	if err != nil {
		return err
	}
	if !slices.Equal(after, defs) {
		return fmt.Errorf("bench mnemos: the rebuilt indexes differ: %v, was %v", after, defs)
	}
	return nil
}

type mnemosIndexDef struct{ name, def string }

// mnemosIndexDefs lists the space's HNSW indexes on experiences, by name.
func mnemosIndexDefs(ctx context.Context, db *database, space int32) ([]mnemosIndexDef, error) {
	rows, err := db.Owner.Query(ctx, `SELECT c.relname::text, pg_get_indexdef(i.indexrelid)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = 'experiences'::regclass AND c.relname LIKE 'experiences\_vec\_s' || $1::int || '\_l%'
ORDER BY c.relname`, space)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (mnemosIndexDef, error) {
		var d mnemosIndexDef
		return d, r.Scan(&d.name, &d.def)
	})
}

// copyMnemos generates, embeds and COPYs one tenant's experiences, in
// batches; for the measured tenant it keeps a sample of the L1 questions.
func copyMnemos(ctx context.Context, db *database, space *mnemos.Space, gen *mnemosGen, rng *rand.Rand, scope yakor.Scope, levels [4]int, measured bool, ld *mnemosLoaded, stderr io.Writer) error {
	type row struct {
		level                           int
		topic, question, answer, reason string
		score                           *int16
	}
	var todo []int // the levels of the rows, L2 and L3 spread among the L1
	for l := 1; l <= 3; l++ {
		for range levels[l] {
			todo = append(todo, l)
		}
	}
	rng.Shuffle(len(todo), func(i, j int) { todo[i], todo[j] = todo[j], todo[i] })
	const batch = 5000
	seen := 0
	for done := 0; done < len(todo); done += batch {
		rows := make([]row, min(batch, len(todo)-done))
		texts := make([]string, len(rows))
		for i := range rows {
			r := row{level: todo[done+i]}
			score := int16(4 + rng.IntN(2))
			switch r.level {
			case mnemos.L1:
				q := gen.question(rng)
				r.question, r.answer = q.text(rng), gen.answer(rng, q)
				r.reason = "correct and complete"
				r.score = &score
				if measured {
					// Reservoir sample of the questions, for paraphrases.
					if seen++; len(ld.sample) < 5000 {
						ld.sample = append(ld.sample, q)
					} else if j := rng.IntN(seen); j < len(ld.sample) {
						ld.sample[j] = q
					}
				}
			case mnemos.L2:
				r.topic, r.question, r.answer = gen.note(rng)
			case mnemos.L3:
				q := gen.question(rng)
				r.question = q.text(rng)
				r.answer, r.reason = gen.wrong(rng, q)
				score = int16(1 + rng.IntN(2))
				r.score = &score
			}
			if r.level != mnemos.L2 {
				r.topic = words.Topic(r.question, nil)
				texts[i] = r.question
			} else {
				texts[i] = r.topic + "\n" + r.question + "\n" + string([]rune(r.answer)[:min(500, utf8.RuneCountInString(r.answer))])
			}
			rows[i] = r
		}
		spaceID, vecs, err := space.Embed(ctx, texts)
		if err != nil {
			return err
		}
		_, err = db.Owner.CopyFrom(ctx, pgx.Identifier{"experiences"},
			[]string{"tenant_id", "level", "topic", "question", "answer", "reason", "score", "source", "source_message_ids", "space_id", "embedding", "visibility"},
			pgx.CopyFromSlice(len(rows), func(i int) ([]any, error) {
				r := rows[i]
				return []any{scope.TenantID, int16(r.level), r.topic, r.question, r.answer, r.reason, r.score, mnemos.SourceModel, []int64{}, spaceID, vecs[i], "shared"}, nil
			}))
		if err != nil {
			return fmt.Errorf("bench mnemos: copy experiences: %w", err)
		}
		if n := done + len(rows); n%50_000 == 0 || n == len(todo) {
			fmt.Fprintf(stderr, "bench mnemos: tenant %s: %d of %d experiences loaded\n", scope.TenantID[:8], n, len(todo))
		}
	}
	return nil
}

// mnemosRecallSQL is recall's query for a level (mnemos/recall.go's
// recallSQL, owner ownOrShared): $1 tenant, $2 vector, $3 rows, $4 the user.
func mnemosRecallSQL(space int32, dims, level int) string {
	return fmt.Sprintf(`SELECT id, level, topic, question, answer, reason, url,
    1 - (embedding::vector(%[2]d) <=> $2::vector(%[2]d)) AS similarity
FROM experiences
WHERE tenant_id = $1 AND space_id = %[1]d AND level = %[3]d AND (visibility = 'shared' OR user_id::text = $4)
ORDER BY embedding::vector(%[2]d) <=> $2::vector(%[2]d)
LIMIT $3`, space, dims, level)
}

// mnemosVectorLiteral is a vector in a plan, shortened in the output.
var mnemosVectorLiteral = regexp.MustCompile(`'\[[-0-9.,e]*\]'`)

// mnemosRecallRows is the rows recall asks for per level: 4 × its limit of
// 3 examples, at least 8.
const mnemosRecallRows = 12

// explainMnemos explains the L1 recall query twice: with the values in
// place (the custom plan every first execution gets), and as a prepared
// statement after six executions, when PostgreSQL may switch a connection
// to a generic plan — as recall's statements, cached by pgx on each pooled
// connection, are.
func explainMnemos(ctx context.Context, db *database, space *mnemos.Space, scope yakor.Scope, asks []mnemosAsk) (mnemosPlan, error) {
	spaceID, dims, err := space.ID(ctx)
	if err != nil {
		return mnemosPlan{}, err
	}
	p := mnemosPlan{Index: fmt.Sprintf("experiences_vec_s%d_l1", spaceID)}
	q := mnemosRecallSQL(spaceID, dims, mnemos.L1)
	vec := func(i int) (pgvector.Vector, error) {
		_, v, err := space.EmbedOne(ctx, asks[i%len(asks)].text)
		return v, err
	}
	conn, err := db.Owner.Acquire(ctx)
	if err != nil {
		return p, err
	}
	defer conn.Release()
	if err := conn.QueryRow(ctx, `SELECT current_setting('hnsw.ef_search'), current_setting('hnsw.iterative_scan')`).Scan(&p.EfSearch, &p.IterativeScan); err != nil {
		return p, err
	}
	explain := func(sql string, v pgvector.Vector) (string, error) {
		// The simple protocol puts the values in the text as literals.
		rows, err := conn.Query(ctx, sql, pgx.QueryExecModeSimpleProtocol, scope.TenantID, v.String(), mnemosRecallRows, scope.UserID)
		if err != nil {
			return "", err
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		return mnemosVectorLiteral.ReplaceAllString(strings.Join(lines, "\n"), "'[…]'"), err
	}
	v, err := vec(0)
	if err != nil {
		return p, err
	}
	if p.CustomPlan, err = explain(`EXPLAIN (ANALYZE, BUFFERS) `+q, v); err != nil {
		return p, err
	}
	const name = "bench_mnemos_recall"
	if _, err := conn.Exec(ctx, `PREPARE `+name+` AS `+q); err != nil {
		return p, err
	}
	defer conn.Exec(context.WithoutCancel(ctx), `DEALLOCATE `+name) //nolint:errcheck
	for i := range 6 {
		v, err := vec(i + 1)
		if err != nil {
			return p, err
		}
		if _, err := conn.Exec(ctx, `EXECUTE `+name+`($1, $2, $3, $4)`, pgx.QueryExecModeSimpleProtocol, scope.TenantID, v.String(), mnemosRecallRows, scope.UserID); err != nil {
			return p, err
		}
	}
	if v, err = vec(7); err != nil {
		return p, err
	}
	if p.PreparedPlan, err = explain(`EXPLAIN (ANALYZE, BUFFERS) EXECUTE `+name+`($1, $2, $3, $4)`, v); err != nil {
		return p, err
	}
	uses := func(plan string) bool { return strings.Contains(plan, "using "+p.Index+" ") }
	p.CustomUses, p.PreparedUses = uses(p.CustomPlan), uses(p.PreparedPlan)
	p.PreparedGenre = "custom"
	if strings.Contains(p.PreparedPlan, "$1") || strings.Contains(p.PreparedPlan, "$2") {
		p.PreparedGenre = "generic"
	}
	return p, nil
}

// mnemosAccuracy compares the L1 query's index scan with an exact scan
// (index scans switched off: HNSW has no bitmap scan, so the planner reads
// the tenant's rows by experiences_by_level or sequentially) on asks: the mean share of the exact k nearest
// rows the index returned among its first k, for k 12 (the rows recall
// reads) and 3 (the examples it shows). The synthetic questions have many
// ties, so a row as near as the exact k-th counts as found.
func mnemosAccuracy(ctx context.Context, db *database, space *mnemos.Space, scope yakor.Scope, asks []mnemosAsk) ([]mnemosAccuracyRow, error) {
	spaceID, dims, err := space.ID(ctx)
	if err != nil {
		return nil, err
	}
	q := mnemosRecallSQL(spaceID, dims, mnemos.L1)
	sims := func(db querier, v pgvector.Vector) ([]float64, error) { return mnemosSims(ctx, db, q, scope, v) }
	found := mnemosFound
	rows := []mnemosAccuracyRow{{Kind: "all"}}
	for _, k := range mnemosKinds {
		rows = append(rows, mnemosAccuracyRow{Kind: k})
	}
	for _, a := range asks {
		_, v, err := space.EmbedOne(ctx, a.text)
		if err != nil {
			return nil, err
		}
		t := time.Now()
		approx, err := sims(db.Owner, v)
		if err != nil {
			return nil, err
		}
		approxMS := ms(time.Since(t))
		var exact []float64
		var exactMS float64
		err = pgx.BeginFunc(ctx, db.Owner, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SET LOCAL enable_indexscan = off`); err != nil {
				return err
			}
			t := time.Now()
			exact, err = sims(tx, v)
			exactMS = ms(time.Since(t))
			return err
		})
		if err != nil {
			return nil, err
		}
		if len(exact) == 0 {
			continue
		}
		for i := range rows {
			if i == 0 || rows[i].Kind == a.kind {
				rows[i].N++
				rows[i].Top12 += found(exact, approx, mnemosRecallRows)
				rows[i].Top3 += found(exact, approx, 3)
				rows[i].indexMS = append(rows[i].indexMS, approxMS)
				rows[i].exactMS = append(rows[i].exactMS, exactMS)
			}
		}
	}
	out := rows[:0]
	for _, r := range rows {
		if r.N > 0 {
			r.Top12, r.Top3 = r.Top12/float64(r.N), r.Top3/float64(r.N)
			r.IndexP50, r.ExactP50 = r.indexMS.pct(50), r.exactMS.pct(50)
			out = append(out, r)
		}
	}
	return out, nil
}

// querier runs a query: a pool or a transaction.
type querier interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}

// mnemosSims runs the recall query q for scope and v on db and returns the
// rows' similarities, the highest first.
func mnemosSims(ctx context.Context, db querier, q string, scope yakor.Scope, v pgvector.Vector) ([]float64, error) {
	rows, err := db.Query(ctx, q, scope.TenantID, v, mnemosRecallRows, scope.UserID)
	if err != nil {
		return nil, err
	}
	var out []float64
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, vals[7].(float64))
	}
	slices.Sort(out)
	slices.Reverse(out)
	return out, rows.Err()
}

// mnemosFound is the share of the exact k nearest rows (similarities
// exact) among the first k approx returned, a row as near as the exact
// k-th counting as found.
func mnemosFound(exact, approx []float64, k int) float64 {
	k = min(k, len(exact))
	hit := 0
	for _, s := range approx[:min(k, len(approx))] {
		if s >= exact[k-1]-1e-6 {
			hit++
		}
	}
	return float64(hit) / float64(k)
}

// mnemosAccuracyRow is the index's accuracy on one kind of question.
type mnemosAccuracyRow struct {
	Kind  string  `json:"kind"`
	N     int     `json:"n"`
	Top12 float64 `json:"top12"` // share of the exact 12 nearest found
	Top3  float64 `json:"top3"`  // share of the exact 3 nearest found
	// IndexP50 and ExactP50 are the L1 query's time by the planner's plan
	// and with index scans off (a bitmap or sequential scan, then a sort).
	IndexP50         float64 `json:"planned_p50_ms"`
	ExactP50         float64 `json:"exact_p50_ms"`
	indexMS, exactMS samples
}
