package bench

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"yakor/postgres/pgtest"
)

// TestBenchUpkeep: the upkeep benchmark runs a conversation in both modes
// and counts what the scripted models were sent: one upkeep call per turn
// (and summaries) against the separate jobs' several, with the same chat.
func TestBenchUpkeep(t *testing.T) {
	t.Parallel()
	url, _ := pgtest.NewURL(t)
	jsonPath := filepath.Join(t.TempDir(), "upkeep.json")
	var stdout, stderr bytes.Buffer
	args := []string{"--turns", "12", "--chars", "400", "--window-chars", "3000", "--database-url", url, "--json", jsonPath}
	if err := runBenchUpkeep(context.Background(), args, &stdout, &stderr, noEnv); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	wantAll(t, stdout.String(), "| mode | turns | chat calls |", "| one call | 12 | 12 |", "| separate | 12 | 12 |", "One call against separate calls")
	var rs []upkeepResult
	readJSON(t, jsonPath, &rs)
	if len(rs) != 2 {
		t.Fatalf("%d results", len(rs))
	}
	one, sep := rs[0], rs[1]
	if one.HelperByKind["upkeep"] != 12 || one.HelperByKind["topics"]+one.HelperByKind["grading"]+one.HelperByKind["facts"] != 0 {
		t.Errorf("one call: helper calls by kind %v", one.HelperByKind)
	}
	if sep.HelperByKind["upkeep"] != 0 || sep.HelperByKind["topics"] != 24 || sep.HelperByKind["grading"] < 12 || sep.HelperByKind["facts"] != 12 {
		t.Errorf("separate: helper calls by kind %v", sep.HelperByKind)
	}
	if one.ChatChars == 0 || one.ChatCalls != sep.ChatCalls || one.HelperChars >= sep.HelperChars || one.Grades != 12 || sep.Grades != 12 || one.Anchors == 0 {
		t.Errorf("one call %+v, separate %+v", one, sep)
	}
}
