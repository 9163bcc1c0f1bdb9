package bench

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"yakor/postgres/pgtest"
)

// TestBenchPrompt runs yakor bench prompt over a short conversation with a
// small window: the table has a row every --every turns, the thread was
// compacted, the prompt stays near its budgets while the full context
// grows, and the chart and the JSON are written.
func TestBenchPrompt(t *testing.T) {
	t.Parallel()
	url, _ := pgtest.NewURL(t)
	dir := t.TempDir()
	pngPath, jsonPath := filepath.Join(dir, "prompt.png"), filepath.Join(dir, "prompt.json")
	var stdout, stderr bytes.Buffer
	// The window and the anchors block scaled down alike (20,000 and 4,000 by default).
	args := []string{"--turns", "60", "--every", "20", "--window-chars", "3000", "--anchor-budget", "600", "--database-url", url, "--png", pngPath, "--json", jsonPath}
	if err := runBenchPrompt(context.Background(), args, &stdout, &stderr, noEnv); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	wantAll(t, stdout.String(), "| turn | prompt chars | system | facts | anchors | summary | window | memory | message | found | full context chars | full ÷ prompt |",
		"\n| 1 |", "\n| 20 |", "\n| 40 |", "\n| 60 |")
	var r promptResult
	readJSON(t, jsonPath, &r)
	if r.Turns != 60 || r.Step != 10 || len(r.Points) != 7 || r.Summaries == 0 || r.Anchors == 0 {
		t.Fatalf("result: %d turns, a point every %d, %d points, %d summaries, %d anchors", r.Turns, r.Step, len(r.Points), r.Summaries, r.Anchors)
	}
	last := r.Points[len(r.Points)-1]
	// The standing prompt (without what one turn's search added) is less
	// than half the conversation.
	if last.Turn != 60 || last.Full <= 2*(last.Chars-last.Layers["found"]) || last.Layers["summary"] == 0 || last.Layers["window"] > 3000 {
		t.Errorf("turn 60: %+v", last)
	}
	f, err := os.Open(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1200 || b.Dy() != 920 {
		t.Errorf("chart is %v", b)
	}
}
