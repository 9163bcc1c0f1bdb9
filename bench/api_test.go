package bench

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"yakor/postgres/pgtest"
)

// TestBenchAPI runs yakor bench api briefly: both paths, both modes, and
// the comparison are printed (the figures themselves are not checked).
func TestBenchAPI(t *testing.T) {
	url, _ := pgtest.NewURL(t)
	var stdout, stderr bytes.Buffer
	args := []string{"--turns", "3", "--database-url", url}
	if err := runBenchAPI(context.Background(), args, &stdout, &stderr, noEnv); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"native    json      3", "openai    json      3", "native  stream      3", "openai  stream      3",
		"openai over native, json: p50", "openai over native, stream: p50"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
