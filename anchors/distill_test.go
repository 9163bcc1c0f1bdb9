package anchors_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"yakor/anchors"
)

func TestDistill(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		max      int
		want     string
	}{
		{"ReplacesChangedTotal", "Итого: 100 руб", "Итого: 120 руб", 1500, "Итого: 120 руб"},
		{"ReplacesFoldedLabel", "ИТОГО: 100 руб", "итого: 120 руб", 1500, "итого: 120 руб"},
		{"ReplacesLabelWithoutColon", "Итого 100 руб", "Итого: 120 руб", 1500, "Итого: 120 руб"},
		{"ReplacedValueMovesToEnd", "Итого: 100 руб; Скидка: 5%", "Итого: 120 руб", 1500, "Скидка: 5%; Итого: 120 руб"},
		{
			"DashLabelKeepsSizesApart",
			"ЛДСП 16 мм — 3 400 руб/лист", "ЛДСП 18 мм — 3 900 руб/лист", 1500,
			"ЛДСП 16 мм — 3 400 руб/лист; ЛДСП 18 мм — 3 900 руб/лист",
		},
		{
			"DashLabelReplacesSameSize",
			"ЛДСП 16 мм — 3 400 руб/лист; ДВП — 910 руб/лист", "ЛДСП 16 мм — 3 600 руб/лист", 1500,
			"ДВП — 910 руб/лист; ЛДСП 16 мм — 3 600 руб/лист",
		},
		{"ReplacesCalculation", "3 × 1250 = 3750", "3 × 1250 = 3760", 1500, "3 × 1250 = 3760"},
		{"Appends", "Итого: 100 руб", "Доставка: 500 руб", 1500, "Итого: 100 руб; Доставка: 500 руб"},
		{"AppendsBareNumbers", "100", "200", 1500, "100; 200"},
		{"SameBareNumberOnce", "100", "100", 1500, "100"},
		{"SplitsLines", "Итого: 100 руб\nДоставка: 500 руб", "Итого: 90 руб", 1500, "Доставка: 500 руб; Итого: 90 руб"},
		{"NewerFragmentOfNewWins", "", "Итого: 1 руб; Итого: 2 руб", 1500, "Итого: 2 руб"},
		{"EmptyOld", "", "Итого: 100 руб", 1500, "Итого: 100 руб"},
		{"EmptyNew", "Итого: 100 руб", "", 1500, "Итого: 100 руб"},
		{"Empty", "", "", 1500, ""},
		{"MaxDropsOldestFirst", "A: 1 руб; B: 2 руб; C: 3 руб", "D: 4 руб", 20, "C: 3 руб; D: 4 руб"},
		{"MaxExactFit", "A: 1 руб", "B: 2 руб", 18, "A: 1 руб; B: 2 руб"},
		{"LongFragmentKeepsItsEnd", "A: 1 руб", "Итого по всем позициям: 120 руб", 10, "м: 120 руб"},
		{"ZeroMax", "A: 1 руб", "B: 2 руб", 0, ""},
		{"NegativeMax", "A: 1 руб", "B: 2 руб", -5, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := anchors.Distill(tt.old, tt.new, tt.max); got != tt.want {
				t.Errorf("Distill(%q, %q, %d) = %q, want %q", tt.old, tt.new, tt.max, got, tt.want)
			}
		})
	}
}

// TestDistillFits checks over random inputs that the result never exceeds
// max, is valid UTF-8, and keeps the newest fragment whenever it fits.
func TestDistillFits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1500))
	for i := range 3000 {
		old, new := randomData(rng, 40), randomData(rng, 10)
		max := rng.IntN(400) - 10
		got := anchors.Distill(old, new, max)
		if n := utf8.RuneCountInString(got); n > max && !(max <= 0 && n == 0) {
			t.Fatalf("#%d: Distill(%q, %q, %d) is %d runes", i, old, new, max, n)
		}
		if !utf8.ValidString(got) {
			t.Fatalf("#%d: Distill(%q, %q, %d) = %q, invalid UTF-8", i, old, new, max, got)
		}
		last := lastFragment(new)
		if last == "" {
			last = lastFragment(old)
		}
		if last != "" && utf8.RuneCountInString(last) <= max && !strings.HasSuffix(got, last) {
			t.Fatalf("#%d: Distill(%q, %q, %d) = %q, lost the newest fragment %q", i, old, new, max, got, last)
		}
	}
}

// lastFragment returns the last non-empty fragment of data, trimmed as
// Distill trims it.
func lastFragment(data string) string {
	var last string
	for line := range strings.Lines(data) {
		for f := range strings.SplitSeq(line, "; ") {
			f = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(f), ";"))
			if f != "" {
				last = f
			}
		}
	}
	return last
}

// randomData returns up to n random fragments, Cyrillic and Latin, with
// labels that often repeat, joined by "; " or line breaks.
func randomData(rng *rand.Rand, n int) string {
	labels := []string{"Итого", "итого", "Доставка", "ЛДСП 16 мм", "Total", "скидка", "", "Ёлка"}
	words := []string{"руб", "₽", "$", "шт", "листов", "очень длинное описание позиции", "x", ";", "—", "\n", "  "}
	var b strings.Builder
	for i := range rng.IntN(n + 1) {
		if i > 0 {
			if rng.IntN(3) == 0 {
				b.WriteString("\n")
			} else {
				b.WriteString("; ")
			}
		}
		if l := labels[rng.IntN(len(labels))]; l != "" {
			b.WriteString(l + ": ")
		}
		for range rng.IntN(6) {
			if rng.IntN(2) == 0 {
				b.WriteString(strings.Repeat("7", 1+rng.IntN(5)))
			} else {
				b.WriteString(words[rng.IntN(len(words))])
			}
			b.WriteString(" ")
		}
	}
	return b.String()
}
