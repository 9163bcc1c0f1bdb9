package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"yakor/turn"
)

// refuse makes PostgreSQL refuse the rows a trigger named name catches
// (before event on table, for rows meeting cond) as a full disk does: with
// disk_full (53100). It returns a function that takes the refusal back. cmd/yakor TestServeDiskFull fills
// a real disk; where the first refused statement falls there depends on
// the data, so these tests pick it.
func (s *stack) refuse(tb testing.TB, name, event, table, cond string) func() {
	tb.Helper()
	ctx := context.Background()
	for _, q := range []string{
		`CREATE OR REPLACE FUNCTION test_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'could not extend file "base/16384/17361": No space left on device' USING ERRCODE = 'disk_full', HINT = 'Check free disk space.';
END $$`,
		`CREATE TRIGGER ` + name + ` BEFORE ` + event + ` ON ` + table + ` FOR EACH ROW WHEN (` + cond + `) EXECUTE FUNCTION test_disk_full()`,
	} {
		if _, err := s.pool.Exec(ctx, q); err != nil {
			tb.Fatal(err)
		}
	}
	return func() {
		if _, err := s.pool.Exec(ctx, `DROP TRIGGER `+name+` ON `+table); err != nil {
			tb.Fatal(err)
		}
	}
}

// TestSendDiskFull: wherever in a send the database refuses to store, the
// send answers 503 saying the disk is full, and nothing is half-written:
// refused with the message, nothing is stored; refused with the reply, the
// message is kept with its turn recorded failed; refused with the
// failure's record too, the turn is recorded before the next send. Sent
// again once the database stores again, the message is answered, stored
// once.
func TestSendDiskFull(t *testing.T) {
	for _, tc := range []struct {
		name     string
		refuse   [][4]string // trigger name, event, table, condition
		kept     bool        // the user's message is stored
		recorded bool        // its turn is recorded failed (else still running until the next send)
	}{
		{"Message", [][4]string{{"full_turns", "INSERT", "turns", "true"}}, false, false},
		{"Reply", [][4]string{{"full_reply", "INSERT", "messages", "NEW.role = 'assistant'"}}, true, true},
		{"FailureRecord", [][4]string{
			{"full_reply", "INSERT", "messages", "NEW.role = 'assistant'"},
			{"full_record", "UPDATE", "turns", "NEW.status = 'failed'"},
		}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustStack(t, nil, turn.Config{})
			thread := s.mustThread(t)
			path := "/api/v1/threads/" + thread + "/messages"
			const body = `{"content":"board 3400 plus panel 1250?","client_id":"c-1"}`
			if code := s.do(t, "POST", path, `{"content":"the price list: board 3400, panel 1250"}`, nil); code != http.StatusOK {
				t.Fatalf("first send: %d", code)
			}
			var allow []func()
			for _, r := range tc.refuse {
				allow = append(allow, s.refuse(t, r[0], r[1], r[2], r[3]))
			}
			before := s.counts(t)
			var r turnResp
			if code := s.do(t, "POST", path, body, &r); code != http.StatusServiceUnavailable || !strings.Contains(r.Error, "the database's disk is full") {
				t.Fatalf("send on a full disk: %d %q, want 503 saying the disk is full", code, r.Error)
			}
			after := s.counts(t)
			if tc.kept != (after["messages"] == before["messages"]+1) || after["messages"] > before["messages"]+1 {
				t.Fatalf("messages %d -> %d; the user's message kept: %v", before["messages"], after["messages"], tc.kept)
			}
			trs := s.turnsOf(t, thread)
			switch last := trs[len(trs)-1]; {
			case !tc.kept && len(trs) != 1:
				t.Fatalf("turns %+v: a turn was recorded for a message not stored", trs)
			case tc.kept && tc.recorded && (last.Status != "failed" || !strings.Contains(last.Error, "the database's disk is full") || last.ReplyMessageID != 0):
				t.Fatalf("turn %+v, want it failed saying the disk is full", last)
			case tc.kept && !tc.recorded && last.Status != "running":
				t.Fatalf("turn %+v: its failure could not be recorded, so it is running", last)
			}

			for _, a := range allow {
				a()
			}
			if code := s.do(t, "POST", path, body, &r); code != http.StatusOK || r.Reply.Content == "" {
				t.Fatalf("send again: %d %q", code, r.Error)
			}
			if got := s.counts(t)["messages"]; got != before["messages"]+2 {
				t.Fatalf("messages %d -> %d, want the message once and its reply", before["messages"], got)
			}
			trs = s.turnsOf(t, thread)
			for _, tr := range trs[1 : len(trs)-1] {
				if tr.Status != "failed" || !strings.Contains(tr.Error, "the database's disk is full") {
					t.Fatalf("turns %+v: the refused one is not recorded failed", trs)
				}
			}
			if last := trs[len(trs)-1]; last.Status != "ok" || len(trs) != map[bool]int{true: 3, false: 2}[tc.kept] {
				t.Fatalf("turns %+v", trs)
			}
		})
	}
}
