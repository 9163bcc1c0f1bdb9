package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"yakor/postgres/pgtest"
)

// TestBenchAllQuick runs yakor bench all --quick end to end into a
// temporary folder: the Markdown, the JSON beside it and the chart are
// written, with every section, its figures in the summary table and the
// commands that reproduce it (the figures themselves are not checked). The
// LoCoMo section and the prompt section's user messages read
// testdata/locomo-quick.json, a conversation of 72 messages in
// locomo10.json's format, so the test needs nothing outside the repository.
func TestBenchAllQuick(t *testing.T) {
	t.Parallel()
	url, name := pgtest.NewURL(t)
	t.Cleanup(func() { dropSiblings(t, url, name) })
	out := filepath.Join(t.TempDir(), "docs", "benchmarks.md")
	var stdout, stderr bytes.Buffer
	args := []string{"--quick", "--out", out, "--database-url", url, "--data", filepath.Join("testdata", "locomo-quick.json"),
		"--binary", yakorBin, "--bench-dir", filepath.Dir(pgtest.DataDir(t))}
	if err := runBenchAll(context.Background(), args, &stdout, &stderr, noEnv); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	md := string(raw)
	wantAll(t, stdout.String(), "| Memory cost per turn, 100 messages in the thread |")
	want := []string{"# Yakor benchmarks", "A quick run", "| CPU | ", "| PostgreSQL | ", "## Summary", "| figure | value | measured with |",
		"Memory cost per turn, 2,000 messages in the thread", "Search latency, 5,000 messages in the database", "Prompt size at turn 60", "Throughput, 4 conversations at once", "Server peak memory under that load", "LoCoMo evidence recall", "LoCoMo's messages in order as the user's messages",
		"Throughput on Citus (a coordinator, 2 workers, one machine)", "Memory cost per turn on Citus, 2,000 messages in the thread", "Search latency on Citus, 5,000 messages",
		"![Prompt size against turn number](prompt-size.png)", "## Reproducing", "bin/yakor bench all"}
	for i, s := range allSections() {
		want = append(want, "## "+string(rune('1'+i))+". "+s.title)
	}
	wantAll(t, md, want...)
	if strings.Contains(strings.ToLower(md), "not measured") {
		t.Errorf("a section was not measured:\n%s", md)
	}
	if strings.Contains(md, "../") || strings.Contains(md, os.TempDir()) {
		t.Errorf("the report names a path outside the repository:\n%s", md)
	}
	if n := strings.Count(md, "To measure this section alone"); n != len(allSections()) {
		t.Errorf("%d sections say how to reproduce them, want %d", n, len(allSections()))
	}
	var rep struct {
		Quick    bool
		Machine  allMachine
		Order    []string
		Sections map[string]struct {
			Figures   []allFigure
			Reproduce []string
			Result    json.RawMessage
		}
	}
	readJSON(t, strings.TrimSuffix(out, ".md")+".json", &rep)
	var keys []string
	for _, s := range allSections() {
		keys = append(keys, s.key)
	}
	if !rep.Quick || !slices.Equal(rep.Order, keys) || rep.Machine.Cores == 0 || rep.Machine.PostgreSQL == "unknown" {
		t.Fatalf("report: quick %v, sections %v (want %v), machine %+v", rep.Quick, rep.Order, keys, rep.Machine)
	}
	for _, k := range keys {
		s := rep.Sections[k]
		if len(s.Figures) == 0 || len(s.Reproduce) == 0 || len(s.Result) == 0 || string(s.Result) == "null" {
			t.Errorf("section %s: %d figures, %d commands, result %.80s", k, len(s.Figures), len(s.Reproduce), s.Result)
		}
	}
	// The throughput section served the real binary and checked every
	// thread of its run.
	var load loadReport
	if err := json.Unmarshal(rep.Sections["load"].Result, &load); err != nil {
		t.Fatal(err)
	}
	if c := load.Check; load.Turns != 4*3 || load.TurnsPerSecond <= 0 || load.ServerPeakBytes == 0 || c.Threads != 4 || c.Lost+c.Duplicated+c.OutOfOrder+c.ProblemCount != 0 {
		t.Errorf("load section: %d turns, %.1f turns/s, peak %d bytes, check %+v", load.Turns, load.TurnsPerSecond, load.ServerPeakBytes, c)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(out), promptChartFile)); err != nil {
		t.Error(err)
	}
}

// TestPickSections: --only keeps report order and refuses unknown names.
func TestPickSections(t *testing.T) {
	got, err := pickSections("locomo, turn")
	if err != nil || len(got) != 2 || got[0].key != "turn" || got[1].key != "locomo" {
		t.Fatalf("pickSections: %v, %v", got, err)
	}
	if _, err := pickSections("turn,nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown section: %v", err)
	}
	if all, _ := pickSections(""); len(all) != len(allSections()) {
		t.Errorf("no --only: %d sections", len(all))
	}
}

// TestAllDefaultOut: without --out, the full report is docs/benchmarks.md
// and a quick one goes into the bench folder.
func TestAllDefaultOut(t *testing.T) {
	if got := allDefaultOut(false, "./.yakor-bench"); got != filepath.Join("docs", "benchmarks.md") {
		t.Errorf("full run: %q", got)
	}
	if got := allDefaultOut(true, "/tmp/b"); got != "/tmp/b/benchmarks-quick.md" {
		t.Errorf("quick run: %q", got)
	}
}

// TestAllLocomoWithoutData: without the LoCoMo data the section says it was
// not measured and how to get it, naming no path of this machine.
func TestAllLocomoWithoutData(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "elsewhere", "locomo10.json")
	part, err := allLocomo(context.Background(), &allEnv{data: missing, stderr: io.Discard, scale: allQuick})
	if err != nil {
		t.Fatal(err)
	}
	if len(part.Figures) != 1 || part.Figures[0].Value != "not measured" || !strings.Contains(part.Body, "Not measured") ||
		!strings.Contains(part.Body, "locomo10.json") || !strings.Contains(part.Body, "docs/development.md") || strings.Contains(part.Body, "elsewhere") {
		t.Errorf("section: %+v", part)
	}
}

// TestSharedBuffers: the bench server's shared buffers are a quarter of
// the machine's memory in whole gigabytes, from 1 to 8.
func TestSharedBuffers(t *testing.T) {
	for memTotal, want := range map[string]string{
		"24634476 kB":  "5GB", // 23.5 GiB
		"2048000 kB":   "1GB",
		"134217728 kB": "8GB",
		"":             "1GB",
		"unknown":      "1GB",
	} {
		if got := sharedBuffers(memTotal); got != want {
			t.Errorf("sharedBuffers(%q) = %s, want %s", memTotal, got, want)
		}
	}
}
