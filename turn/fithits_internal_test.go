package turn

import (
	"fmt"
	"testing"
	"time"
	"unicode/utf8"

	"yakor/search"
)

// TestFitHitsLeavesOutTheLowestRanked: hits whose block with its framing
// passes the room lose their last (lowest-ranked) ones until it fits; a
// block that fits keeps them all; one hit always stays.
func TestFitHitsLeavesOutTheLowestRanked(t *testing.T) {
	at := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	var hits []search.Hit
	for i := range 10 {
		hits = append(hits, search.Hit{MessageID: int64(10 - i), Role: "user", Content: fmt.Sprintf("message number %d of the thread", i), CreatedAt: at})
	}
	format := func(h []search.Hit) string { return search.FormatHits("en", "number", h, true) }
	whole := utf8.RuneCountInString(format(hits))
	if got, block := fitHits(hits, whole, format); len(got) != 10 || block != format(hits) {
		t.Errorf("room for all: %d hits kept, want 10", len(got))
	}
	room := utf8.RuneCountInString(format(hits[:6]))
	got, block := fitHits(hits, room+1, format)
	if len(got) != 6 || got[5].MessageID != hits[5].MessageID {
		t.Errorf("room for six: kept %d, want the six best", len(got))
	}
	if n := utf8.RuneCountInString(block); n > room+1 || block != format(got) {
		t.Errorf("block of %d characters in a room of %d, or not the kept hits'", n, room+1)
	}
	if got, _ := fitHits(hits, 1, format); len(got) != 1 || got[0].MessageID != hits[0].MessageID {
		t.Errorf("no room: kept %v, want the best hit", got)
	}
}
