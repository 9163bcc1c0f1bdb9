package anchors_test

import (
	"strings"
	"testing"

	"yakor/anchors"
)

// TestBlockOmitting: anchors not loaded count among the folded topics, and
// the budget still holds.
func TestBlockOmitting(t *testing.T) {
	as := []anchors.Anchor{
		{ID: 10, Topic: "доставка", Data: "доставка: 2500 руб", CharPos: 100},
		{ID: 11, Topic: "монтаж", Data: "монтаж: 15000 руб", CharPos: 200},
	}
	got := anchors.BlockOmitting(as, 7, 11, "en", 3000)
	want := "[DIALOGUE TOPICS: … (7 earlier topics) → доставка → монтаж]\n[DATA: доставка: доставка: 2500 руб; монтаж: монтаж: 15000 руб]"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	small := anchors.BlockOmitting(as, 7, 11, "en", 60)
	if n := len([]rune(small)); n > 60 || !strings.Contains(small, "монтаж") || !strings.Contains(small, "8 earlier topics") {
		t.Fatalf("budget 60: %d runes: %q", n, small)
	}
	if anchors.BlockOmitting(as, 0, 11, "en", 3000) != anchors.Block(as, 11, "en", 3000) {
		t.Fatal("omitting nothing differs from Block")
	}
}
