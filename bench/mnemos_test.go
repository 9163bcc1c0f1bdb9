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
		"| questions | n | p50 |", "| all | 20 |", "| paraphrase of a stored question | 7 |", "| unrelated question | 6 |",
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
	all := rep.Recall[0]
	if all.Kind != "all" || all.N != 20 || all.P50 <= 0 || all.P99 < all.P50 || all.Max < all.P99 {
		t.Errorf("recall: %+v", all)
	}
	for _, r := range rep.Recall[1:] {
		// A paraphrase shares most words with its stored question: it is
		// always recalled.
		if r.Kind == mnemosKinds[0] && (r.ByLevel[1] < 1 || r.Empty != 0) {
			t.Errorf("paraphrases: %+v", r)
		}
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
