package turn_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"yakor/app"
	"yakor/app/apptest"
	"yakor/history"
	"yakor/llm"
	"yakor/search"
	"yakor/turn"
)

// searcher is a chat model that asks to search when the user's message
// says "find", answers from the hits then, and records the characters of
// every request.
type searcher struct {
	mu    sync.Mutex
	sizes []int
	last  string // the last request's messages
}

func (m *searcher) Stream(_ context.Context, req llm.Request, fn func(string) error) (llm.Result, error) {
	n := 0
	var all strings.Builder
	for _, msg := range req.Messages {
		n += utf8.RuneCountInString(msg.Content)
		all.WriteString(msg.Content + "\n")
	}
	m.mu.Lock()
	m.sizes, m.last = append(m.sizes, n), all.String()
	m.mu.Unlock()
	last := req.Messages[len(req.Messages)-1]
	text := "Noted."
	if last.Role == "user" && strings.Contains(last.Content, "find") {
		text = "SEARCH_HISTORY: oak board price"
	}
	return llm.Result{Text: text, FinishReason: "stop"}, fn(text)
}
func (m *searcher) Provider() string { return "openai" }
func (m *searcher) Model() string    { return "searcher-1" }

// TestPromptBudget: with a window budget larger than the prompt budget,
// the window's oldest messages give way so that no request to the model,
// the search's hits included, passes the prompt budget, and the search
// still finds what the window gave up.
func TestPromptBudget(t *testing.T) {
	cfg := apptest.Config()
	cfg.WindowChars, cfg.PromptChars, cfg.SearchRounds = 20000, 8000, 1
	m := &searcher{}
	s := apptest.New(t, cfg, app.WithInlineJobs(), app.WithChatModel(m))
	ctx := s.Local.Context(t.Context())
	th, err := s.History.CreateThread(ctx, s.Local, history.ThreadCreate{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	scope := s.Local.WithThread(th.ID)
	send := func(text string) turn.Outcome {
		out, err := s.Engine.Send(ctx, scope, turn.Input{Content: text}, func(turn.Event) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	send("Price list: the oak board costs 3400 rub per sheet.")
	for i := range 14 {
		send(fmt.Sprintf("Note %d: %s", i, strings.Repeat("we talk about the kitchen layout and the delivery window. ", 16)))
	}
	out := send("Please find what the oak board cost.")
	tr, err := s.Engine.FindTrace(ctx, scope, out.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, l := range tr.Layers {
		if l.Name == turn.LayerFound {
			found = l.Chars
		}
	}
	if len(tr.Searches) != 1 || found == 0 || !strings.Contains(m.last, "3400") {
		t.Fatalf("the search did not bring the price back: %+v, found %d chars", tr.Searches, found)
	}
	if tr.PromptChars > cfg.PromptChars { // the found layer's characters included
		t.Fatalf("prompt %d chars (found %d of them), over the budget of %d", tr.PromptChars, found, cfg.PromptChars)
	}
	for i, n := range m.sizes {
		if n > cfg.PromptChars+200 { // the pass's own search line rides along
			t.Fatalf("request %d to the model had %d chars, over the budget of %d", i, n, cfg.PromptChars)
		}
	}
	if first := m.sizes[len(m.sizes)-2]; first < cfg.PromptChars*3/4 {
		t.Fatalf("the last turn's first request had only %d chars: the window gave way when it had no need", first)
	}
}

// previewNotes imports into a new thread a price list and notes of 930
// characters each, and previews the question about the price with the
// prompt budget promptChars; it returns the preview and the stored
// messages.
func previewNotes(t *testing.T, promptChars, notes int) (turn.Preview, []history.Message) {
	t.Helper()
	cfg := apptest.Config()
	cfg.WindowChars, cfg.PromptChars = 20000, promptChars
	s := apptest.New(t, cfg, app.WithInlineJobs())
	ctx := s.Local.Context(t.Context())
	th, err := s.History.CreateThread(ctx, s.Local, history.ThreadCreate{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	scope := s.Local.WithThread(th.ID)
	msgs := []history.NewMessage{{Role: "user", Content: "Price list: the oak board costs 3400 rub per sheet."}}
	for i := range notes {
		msgs = append(msgs, history.NewMessage{Role: "user", Content: fmt.Sprintf("Note %d: %s", i, strings.Repeat("we talk about the kitchen layout and the delivery window. ", 16))})
	}
	stored, err := s.Engine.Import(ctx, scope, msgs)
	if err != nil {
		t.Fatal(err)
	}
	pv, err := s.Engine.Preview(ctx, scope, "What did the oak board cost?")
	if err != nil {
		t.Fatal(err)
	}
	return pv, stored
}

// TestPreviewKeepsPromptBudget: the memory-only preview of a message
// builds the prompt as a turn does, the prompt budget included: the
// window gives way for the search's hits, which then reach what it gave
// up.
func TestPreviewKeepsPromptBudget(t *testing.T) {
	const budget = 8000
	pv, _ := previewNotes(t, budget, 14)
	if got := pv.Prompt.TotalChars(); got > budget {
		t.Errorf("the preview's prompt holds %d characters, over the budget of %d", got, budget)
	}
	if !slices.ContainsFunc(pv.Search.Hits, func(h search.Hit) bool { return strings.Contains(h.Content, "3400") }) {
		t.Errorf("the preview's search did not reach the price the window gave up: %d hits", len(pv.Search.Hits))
	}
}

// TestWindowKeepsItsNewestForASearch: however little the prompt budget
// leaves, the window gives way for a search only down to its newest 2,000
// characters (the exchange the user is in), never the newest of them.
func TestWindowKeepsItsNewestForASearch(t *testing.T) {
	pv, stored := previewNotes(t, 3000, 8)
	var want []int64
	for _, m := range stored[len(stored)-3:] {
		want = append(want, m.ID)
	}
	var window []int64
	for _, l := range pv.Prompt.Layers {
		if l.Name == turn.LayerWindow {
			window = l.MessageIDs
		}
	}
	// Three notes are the fewest newest that hold 2,000 characters.
	if !slices.Equal(window, want) {
		t.Errorf("the window kept messages %v, want the newest three %v", window, want)
	}
}
