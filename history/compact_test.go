package history_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"yakor"
	"yakor/history"
	"yakor/postgres/pgtest"
)

// conversation appends n exchanges to scope's thread: the first sets a
// price list, each later one a numbered question and its answer.
func conversation(t *testing.T, s *history.Store, scope yakor.Scope, n int) []history.Message {
	t.Helper()
	ctx := context.Background()
	var all []history.Message
	add := func(role, text string) {
		m, _, err := s.Append(ctx, scope, history.NewMessage{Role: role, Content: text})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, m)
	}
	add(history.RoleUser, "Price list: oak board 3400 per sheet, birch panel 1250 per sheet.")
	add(history.RoleAssistant, "Noted: oak board 3400, birch panel 1250.")
	for i := 1; i < n; i++ {
		add(history.RoleUser, fmt.Sprintf("Order %d: how many boards for cabinet %d? %s", i, i, strings.Repeat("Some details about the cabinet. ", 8)))
		add(history.RoleAssistant, fmt.Sprintf("Cabinet %d needs %d boards; we agreed the total is %d.", i, i+2, (i+2)*3400))
	}
	return all
}

// TestCompact: a thread over its window gets a summary row; the window
// then starts at it, after the first exchange; every message is still
// listed; and a second pass with nothing new skips.
func TestCompact(t *testing.T) {
	ctx := context.Background()
	s, base := mustSetup(t)
	scope := mustThread(t, s, base)
	msgs := conversation(t, s, scope, 40)
	c := history.NewCompactor(s, nil, nil, history.CompactConfig{WindowChars: 4000, TailChars: 1500, MinSave: 500}, pgtest.Logger(t))
	r, err := c.Compact(ctx, scope)
	if err != nil || r.Skipped != "" || r.Summary.ID == 0 {
		t.Fatalf("compact: %+v %v", r, err)
	}
	if !strings.HasPrefix(r.Summary.Content, "[SUMMARY of messages") || !strings.Contains(r.Summary.Content, "Resolved:") {
		t.Fatalf("summary:\n%s", r.Summary.Content)
	}
	w, err := s.Window(ctx, scope, 4000, 0)
	if err != nil {
		t.Fatal(err)
	}
	if w[0].ID != msgs[0].ID || w[1].ID != msgs[1].ID || w[2].ID != r.Summary.ID || w[3].ID <= r.Summary.SummaryThrough {
		t.Fatalf("window starts %d %d %d %d; want the head %d %d, the summary %d, then after %d", w[0].ID, w[1].ID, w[2].ID, w[3].ID, msgs[0].ID, msgs[1].ID, r.Summary.ID, r.Summary.SummaryThrough)
	}
	if last := w[len(w)-1]; last.ID != msgs[len(msgs)-1].ID {
		t.Fatalf("the window ends at %d, not the newest message %d", last.ID, msgs[len(msgs)-1].ID)
	}
	total := 0
	for _, m := range w {
		total += m.Chars
	}
	if total > 4000 {
		t.Fatalf("window of %d characters over its budget", total)
	}
	listed, err := s.Messages(ctx, scope, history.MessageFilter{})
	if err != nil || len(listed) != len(msgs)+1 {
		t.Fatalf("listed %d messages, want every one of %d plus the summary (%v)", len(listed), len(msgs), err)
	}
	if r, err := c.Compact(ctx, scope); err != nil || r.Skipped == "" {
		t.Fatalf("a second pass with nothing new: %+v %v", r, err)
	}
}

// TestWriteSummaryOnce: the same summary written twice, at once, is one
// row.
func TestWriteSummaryOnce(t *testing.T) {
	ctx := context.Background()
	s, base := mustSetup(t)
	scope := mustThread(t, s, base)
	msgs := conversation(t, s, scope, 5)
	through := msgs[5].ID
	var wg sync.WaitGroup
	ids := make([]int64, 8)
	created := make([]bool, 8)
	for i := range ids {
		wg.Go(func() {
			m, c, err := s.WriteSummary(ctx, scope, through, fmt.Sprintf("[SUMMARY of messages 1–%d]\nResolved:\n- writer %d", through, i))
			if err != nil {
				t.Error(err)
			}
			ids[i], created[i] = m.ID, c
		})
	}
	wg.Wait()
	n := 0
	for i := range ids {
		if ids[i] != ids[0] {
			t.Fatalf("writers got rows %v", ids)
		}
		if created[i] {
			n++
		}
	}
	listed, _ := s.Messages(ctx, scope, history.MessageFilter{})
	summaries := 0
	for _, m := range listed {
		if m.Kind == history.KindSummary {
			summaries++
		}
	}
	if n != 1 || summaries != 1 {
		t.Fatalf("%d writers created a row, %d summary rows; want 1 and 1", n, summaries)
	}
}
