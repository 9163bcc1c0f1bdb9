package search_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"yakor/search"
)

// TestFormatHitsGroupsByMinute: hits come oldest first whatever their
// rank, one time line for the hits of a minute (an exchange is mostly
// one), each hit with its author, in the conversation's language.
func TestFormatHitsGroupsByMinute(t *testing.T) {
	at := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	hits := []search.Hit{
		{MessageID: 7, Role: "assistant", Content: "Noted: oak is 3400.", CreatedAt: at.Add(26*time.Hour + 20*time.Second)},
		{MessageID: 2, Role: "user", Author: "Anna", Content: "The oak board costs 3400.", CreatedAt: at.Add(10 * time.Second)},
		{MessageID: 6, Role: "user", Content: "And oak again?", CreatedAt: at.Add(26 * time.Hour)},
		{MessageID: 3, Role: "assistant", Content: "Oak at 3400, noted.", CreatedAt: at.Add(50 * time.Second)},
		{MessageID: 4, Role: "user", Content: "Birch is 2100, oak stays.", CreatedAt: at.Add(90 * time.Second)},
	}
	want := `[FOUND IN HISTORY: "oak" — 5 messages, oldest first]
2026-12-05 09:00:
(Anna) The oak board costs 3400.
(assistant) Oak at 3400, noted.
2026-12-05 09:01:
(user) Birch is 2100, oak stays.
2026-12-06 11:00:
(user) And oak again?
(assistant) Noted: oak is 3400.
[END OF FOUND IN HISTORY]`
	if diff := cmp.Diff(want, search.FormatHits("en", "oak", hits, false)); diff != "" {
		t.Errorf("English block (-want +got):\n%s", diff)
	}
	wantRU := `[НАЙДЕНО В ИСТОРИИ: «дуб» — сообщений: 2, от старых к новым]
2026-12-05 09:00:
(Anna) The oak board costs 3400.
(ассистент) Oak at 3400, noted.
[КОНЕЦ НАЙДЕННОГО]
Больше искать нельзя: ответь сейчас.`
	ru := []search.Hit{hits[3], hits[1]}
	if diff := cmp.Diff(wantRU, search.FormatHits("ru", "дуб", ru, true)); diff != "" {
		t.Errorf("Russian block (-want +got):\n%s", diff)
	}
}
