package llm_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"yakor/llm"
	"yakor/search"
)

// TestOfflineSearchProtocol: the offline model, which knows the
// history-search protocol only as text (llm does not import search), asks
// for a search with a marker line that search's parser reads, and answers
// from the blocks search.FormatHits renders, in both languages.
func TestOfflineSearchProtocol(t *testing.T) {
	t.Parallel()
	tests := []struct {
		lang, earlier, question, wantQuery, hit string
		wantFound, wantNotFound                 string
	}{
		{
			"en", "Hello, shall we plan the kitchen?", "What was the price for the LDSP sheet?", "price ldsp sheet",
			"The LDSP sheet costs 1200 rubles.",
			"Found in the conversation's history: «(2025-03-01 10:00, user) The LDSP sheet costs 1200 rubles.»",
			"A search of the conversation's history found nothing for this question.",
		},
		{
			"ru", "Привет, обсудим кухню?", "Какая была цена листа ЛДСП?", "цена листа лдсп",
			"Лист ЛДСП стоит 1200 рублей.",
			"Нашлось в истории разговора: «(2025-03-01 10:00, пользователь) Лист ЛДСП стоит 1200 рублей.»",
			"Поиск по истории разговора ничего не нашёл по этому вопросу.",
		},
	}
	o := llm.NewOffline()
	ask := func(t *testing.T, msgs []llm.Message) string {
		t.Helper()
		res, err := o.Complete(context.Background(), llm.Request{Messages: msgs})
		if err != nil {
			t.Fatalf("Complete: %v", err)
		}
		return res.Text
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			t.Parallel()
			msgs := []llm.Message{
				{Role: "system", Content: search.Instruction(tt.lang)},
				{Role: "user", Content: tt.earlier},
				{Role: "user", Content: tt.question},
			}
			reply := ask(t, msgs)
			p := search.NewParser()
			pieces := append(p.Feed(reply), p.Flush()...)
			if len(pieces) != 1 || pieces[0].Query != tt.wantQuery || reply != search.Marker(tt.wantQuery) {
				t.Fatalf("reply %q parses to %+v, want only the marker of %q", reply, pieces, tt.wantQuery)
			}

			msgs = append(msgs, llm.Message{Role: "assistant", Content: reply})
			// Two minutes' groups: the hit answering is quoted with its own.
			hits := []search.Hit{
				{MessageID: 2, Role: "user", Content: tt.hit, CreatedAt: time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)},
				{MessageID: 1, Role: "user", Content: tt.earlier, CreatedAt: time.Date(2025, 2, 28, 9, 30, 0, 0, time.UTC)},
			}
			for _, final := range []bool{false, true} {
				found := ask(t, append(msgs, llm.Message{Role: "user", Content: search.FormatHits(tt.lang, tt.wantQuery, hits, final)}))
				if !strings.Contains(found, tt.wantFound) {
					t.Errorf("final %v: answer to the hits does not hold %q:\n%s", final, tt.wantFound, found)
				}
				none := ask(t, append(msgs, llm.Message{Role: "user", Content: search.FormatHits(tt.lang, tt.wantQuery, nil, final)}))
				if !strings.Contains(none, tt.wantNotFound) {
					t.Errorf("final %v: answer to no hits does not hold %q:\n%s", final, tt.wantNotFound, none)
				}
			}
		})
	}
}
