package history_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"yakor/history"
)

// dated is conv with every message said at at.
func dated(at time.Time, lines ...string) []history.Message {
	ms := conv(lines...)
	for i := range ms {
		ms[i].CreatedAt = at
	}
	return ms
}

// TestOfflineSummaryDates: an item naming a day by the day it was said
// keeps that day; one that does not, or whose time is unknown, is as said.
func TestOfflineSummaryDates(t *testing.T) {
	fri := time.Date(2026, 11, 27, 22, 30, 0, 0, time.FixedZone("MSK", 3*3600)) // Fri 19:30 UTC
	s := history.OfflineSummary(history.Summary{}, dated(fri,
		"user: The delivery comes tomorrow at 10.",
		"assistant: Noted: 12 boards, 40,800 RUB in all.",
		"user: Встреча в пятницу в 15:00.",
		"user: Could you check the tax rate next week?",
	), 0)
	want := history.Summary{
		Resolved: []string{
			"The delivery comes tomorrow at 10. (said on Fri 2026-11-27)",
			"Noted: 12 boards, 40,800 RUB in all.",
			"Встреча в пятницу в 15:00. (сказано в пт 2026-11-27)",
		},
		Pending:    []string{"Could you check the tax rate next week? (said on Fri 2026-11-27)"},
		ActiveTask: "Could you check the tax rate next week? (said on Fri 2026-11-27)",
	}
	if d := cmp.Diff(want, s); d != "" {
		t.Fatalf("summary (-want +got):\n%s", d)
	}

	// Unknown time: nothing to date by.
	s = history.OfflineSummary(history.Summary{}, conv("user: The delivery comes tomorrow at 10."), 0)
	if got := s.Resolved; len(got) != 1 || got[0] != "The delivery comes tomorrow at 10." {
		t.Fatalf("undated message: %q", got)
	}

	// A long item keeps its stamp within the item's length.
	long := "The delivery comes tomorrow " + strings.Repeat("with the oak boards and the birch ones ", 8) + "in the morning."
	s = history.OfflineSummary(history.Summary{}, dated(fri, "user: "+long), 0)
	if it := s.Resolved[0]; !strings.HasSuffix(it, "… (said on Fri 2026-11-27)") || len([]rune(it)) != 200 {
		t.Fatalf("long item: %d runes: %q", len([]rune(it)), it)
	}

	// A dated pending item of an earlier summary is answered by its words,
	// not its stamp's.
	prev := history.Summary{Pending: []string{"Could you check the tax rate next week? (said on Fri 2026-11-27)"}}
	s = history.OfflineSummary(prev, dated(fri.AddDate(0, 0, 5), "assistant: I checked: the tax rate is 20%."), 0)
	if len(s.Pending) != 0 {
		t.Fatalf("answered pending item kept: %q", s.Pending)
	}
}

// TestSummaryRequestDays: the helper model sees each message's day.
func TestSummaryRequestDays(t *testing.T) {
	fri := time.Date(2026, 11, 27, 19, 30, 0, 0, time.UTC)
	msgs := dated(fri, "user: The delivery comes tomorrow.", "assistant: Noted.")
	msgs[0].Author = "Anna"
	req := history.SummaryRequest(history.Summary{}, msgs, 0)
	user := req.Messages[1].Content
	for _, w := range []string{"user (#1, Anna, Fri 2026-11-27): The delivery comes tomorrow.", "assistant (#2, Fri 2026-11-27): Noted."} {
		if !strings.Contains(user, w) {
			t.Errorf("request lacks %q:\n%s", w, user)
		}
	}
	if sys := req.Messages[0].Content; !strings.Contains(sys, "the date it means") {
		t.Errorf("the instructions do not ask for dates:\n%s", sys)
	}
}
