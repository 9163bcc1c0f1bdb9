package bench

import (
	"bytes"
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"yakor/postgres/pgtest"
)

func TestBenchMnemos(t *testing.T) {
	url, _ := pgtest.NewURL(t)
	out := filepath.Join(t.TempDir(), "mnemos.json")
	var stdout, stderr bytes.Buffer
	args := []string{"--entries", "2000", "--queries", "20", "--turns", "10", "--database-url", url, "--json", out}
	if err := runBenchMnemos(context.Background(), args, &stdout, &stderr, noEnv); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	wantAll(t, stdout.String(), []string{
		"2060 experiences (2000 L1 examples, 20 L2 notes, 40 L3 warnings) over 1 tenant(s)",
		"| legs | questions | n | p50 |", "| vector | all | 20 |", "| vector + lexical | all | 20 |",
		"| vector + lexical | paraphrase of a stored question | 7 |", "| vector | unrelated question | 6 |",
		"labelled set (data/mnemos_recall.json: ", "| 0.45 (default, vector leg alone) | off |", "| 0.45 (default) | 0.50 |",
		"L1 recall query, HNSW index experiences_vec_s1_l1", "EXPLAIN (ANALYZE, BUFFERS), custom plan:",
		"| without recall | 10 |", "| with recall | 10 |", "cost added by recall",
	}...)
	var rep mnemosReport
	readJSON(t, out, &rep)
	if rep.Loaded != [4]int{2060, 2000, 20, 40} || rep.MeasuredTenant != rep.Loaded || rep.Dims != 384 {
		t.Fatalf("loaded %v, measured %v, %d dims", rep.Loaded, rep.MeasuredTenant, rep.Dims)
	}
	if !strings.HasPrefix(rep.IndexLoad, "dropped") || rep.IndexSeconds <= 0 {
		t.Errorf("index load %q in %.2f s", rep.IndexLoad, rep.IndexSeconds)
	}
	if len(rep.Recall) != 2*(1+len(mnemosKinds)) {
		t.Fatalf("recall rows: %+v", rep.Recall)
	}
	for i, r := range rep.Recall {
		if r.Lexical != (i > len(mnemosKinds)) {
			t.Errorf("row %d: lexical %v", i, r.Lexical)
		}
		if r.Kind == "all" && (r.N != 20 || r.P50 <= 0 || r.P99 < r.P50 || r.Max < r.P99) {
			t.Errorf("recall: %+v", r)
		}
		// A paraphrase shares most words with its stored question: it is
		// always recalled.
		if r.Kind == mnemosKinds[0] && (r.ByLevel[1] < 1 || r.Empty != 0) {
			t.Errorf("paraphrases: %+v", r)
		}
	}
	// The defaults' thresholds were tuned on the labelled set: with both
	// legs, at least 85% of its questions recall their entry and 85% of
	// its unrelated ones recall none of its entries, where the offline
	// embedder's vectors alone find well under half.
	vectors, both := mnemosSetRow(t, rep.Set, 0.45, 0), mnemosSetRow(t, rep.Set, 0.45, 0.5)
	if len(rep.Set) != len(mnemosSetMinScores)*len(mnemosSetMinLexicals) || both.Expected < 60 || both.Unrelated < 25 ||
		100*both.Found < 85*both.Expected || 100*both.Quiet < 85*both.Unrelated || 2*vectors.Found >= both.Expected {
		t.Errorf("labelled set: the vector leg alone %+v, both legs %+v", vectors, both)
	}
	if rep.Plan.CustomPlan == "" || rep.Plan.PreparedPlan == "" || rep.Plan.EfSearch == "" || len(rep.Accuracy) != 4 || rep.Accuracy[0].N != 20 {
		t.Errorf("plan %+v, accuracy %+v", rep.Plan, rep.Accuracy)
	}
	for _, a := range rep.Accuracy {
		if a.Top12 <= 0 || a.Top12 > 1 || a.Top3 <= 0 || a.Top3 > 1 {
			t.Errorf("accuracy %+v", a)
		}
	}
	if rep.TurnOff.N != 10 || rep.TurnOn.N != 10 || rep.TurnOff.MemoryP50 <= 0 || rep.TurnOn.MemoryP50 <= 0 || rep.TurnOn.RecallP50 <= 0 || rep.TurnOff.RecallP50 != 0 {
		t.Errorf("turns: without %+v, with %+v", rep.TurnOff, rep.TurnOn)
	}
	if rep.TurnOn.MemoryChars <= 0 || rep.TurnOff.MemoryChars != 0 {
		t.Errorf("memory block: without %.0f chars, with %.0f", rep.TurnOff.MemoryChars, rep.TurnOn.MemoryChars)
	}

	// The bench's tenants are gone, with their experiences; the space's
	// indexes are back as they were.
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var rows, indexes int
	if err := conn.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM experiences) + (SELECT count(*) FROM tenants WHERE name LIKE 'bench-mnemos-%')`).Scan(&rows); err != nil || rows != 0 {
		t.Errorf("%d rows left (%v)", rows, err)
	}
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_indexes WHERE indexname LIKE 'experiences_vec_s1_l_' AND indexdef LIKE '%USING hnsw%'`).Scan(&indexes); err != nil || indexes != 3 {
		t.Errorf("%d HNSW indexes (%v)", indexes, err)
	}
}

func TestMnemosParaphrase(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		q := mnemosThemes.question(rng)
		p := mnemosThemes.paraphrase(rng, q)
		if p.tmpl == q.tmpl || p.topic != q.topic || p.ru != q.ru {
			t.Fatalf("paraphrase %+v of %+v", p, q)
		}
		for _, s := range []string{q.text(rng), p.text(rng), mnemosThemes.answer(rng, q)} {
			if strings.Contains(s, "%!") {
				t.Fatalf("bad template: %q", s)
			}
		}
		a, why := mnemosThemes.wrong(rng, q)
		_, title, note := mnemosThemes.note(rng)
		for _, s := range []string{a, why, title, note} {
			if strings.Contains(s, "%!") || s == "" {
				t.Fatalf("bad template: %q", s)
			}
		}
	}
}

func TestBenchMnemosFlags(t *testing.T) {
	for _, args := range [][]string{{"--entries", "0"}, {"--entries", "10", "--tenants", "11"}, {"--turns", "0"}} {
		err := runBenchMnemos(context.Background(), args, &bytes.Buffer{}, &bytes.Buffer{}, noEnv)
		if err == nil || !strings.Contains(err.Error(), "bench mnemos") {
			t.Errorf("%q: err = %v", args, err)
		}
	}
}

// mnemosSetRow returns the labelled set's figures at a pair of thresholds.
func mnemosSetRow(t *testing.T, scores []mnemosSetScore, minScore, minLexical float64) mnemosSetScore {
	t.Helper()
	for _, s := range scores {
		if s.MinScore == minScore && s.MinLexical == minLexical {
			return s
		}
	}
	t.Fatalf("no row for %.2f, %.2f in %+v", minScore, minLexical, scores)
	return mnemosSetScore{}
}
