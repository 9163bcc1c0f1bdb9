package bench

import (
	"bytes"
	"context"
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
	wantAll(t, stdout.String(), "native    json      3", "openai    json      3", "native  stream      3", "openai  stream      3",
		"openai over native, json: p50", "openai over native, stream: p50")
}
