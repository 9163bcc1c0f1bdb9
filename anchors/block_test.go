package anchors_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"yakor/anchors"
)

func runes(s string) int { return utf8.RuneCountInString(s) }

func TestBlock(t *testing.T) {
	en := []anchors.Anchor{ // given out of order: Block sorts by position
		{ID: 3, Topic: "conversion to USD", Data: "Total: $14", CharPos: 2000},
		{ID: 1, Topic: "price list", Data: "LDSP 16 mm: 3400 RUB/sheet", CharPos: 0},
		{ID: 2, Topic: "cost  calculation", Data: "Total: 1050 RUB", CharPos: 1000},
	}
	ru := []anchors.Anchor{
		{ID: 1, Topic: "прайс", Data: "ЛДСП 16 мм — 3 400 руб/лист", CharPos: 0},
		{ID: 2, Topic: "расчёт стоимости", Data: "Итого: 1 050 руб\nДоставка: 500 руб", CharPos: 900},
		{ID: 3, Topic: "перевод в доллары", CharPos: 1700},
	}
	const (
		enFull = "[DIALOGUE TOPICS: price list → cost calculation → conversion to USD]\n" +
			"[DATA: price list: LDSP 16 mm: 3400 RUB/sheet; cost calculation: Total: 1050 RUB; conversion to USD: Total: $14]"
		enNoOldestData = "[DIALOGUE TOPICS: price list → cost calculation → conversion to USD]\n" +
			"[DATA: cost calculation: Total: 1050 RUB; conversion to USD: Total: $14]"
		enCurrentDataOnly = "[DIALOGUE TOPICS: price list → cost calculation → conversion to USD]\n" +
			"[DATA: conversion to USD: Total: $14]"
		enFolded   = "[DIALOGUE TOPICS: … (2 earlier topics) → conversion to USD]\n[DATA: conversion to USD: Total: $14]"
		enCutData  = "[DIALOGUE TOPICS: … (2 earlier topics) → conversion to USD]\n[DATA: conversion to USD: …$14]"
		enNoData   = "[DIALOGUE TOPICS: … (2 earlier topics) → conversion to USD]"
		enCutTopic = "[DIALOGUE TOPICS: … (2 earlier topics) → conversion…]"
		enBareCut  = "[DIALOGUE TOPICS: conv…]"

		ruFull = "[ТЕМЫ ДИАЛОГА: прайс → расчёт стоимости → перевод в доллары]\n" +
			"[ДАННЫЕ: прайс: ЛДСП 16 мм — 3 400 руб/лист; расчёт стоимости: Итого: 1 050 руб; Доставка: 500 руб]"
		ruFolded = "[ТЕМЫ ДИАЛОГА: … (ещё 2 темы) → перевод в доллары]"
		ruMiddle = "[ТЕМЫ ДИАЛОГА: прайс → … (ещё 2 темы)]\n[ДАННЫЕ: прайс: ЛДСП 16 мм — 3 400 руб/лист]"
	)
	tests := []struct {
		name      string
		anchors   []anchors.Anchor
		currentID int64
		lang      string
		budget    int
		want      string
	}{
		{"English", en, 3, "en", 3000, enFull},
		{"EnglishExactBudget", en, 3, "en", runes(enFull), enFull},
		{"UnknownLangIsEnglish", en, 3, "", runes(enFull), enFull},
		{"DefaultBudget", en, 3, "en", 0, enFull},
		{"DropsOldestDataFirst", en, 3, "en", runes(enFull) - 1, enNoOldestData},
		{"DropsAllOlderData", en, 3, "en", runes(enNoOldestData) - 1, enCurrentDataOnly},
		{"FoldsOldestTopics", en, 3, "en", runes(enCurrentDataOnly) - 1, enFolded},
		{"CutsCurrentDataKeepingNewest", en, 3, "en", runes(enFolded) - 3, enCutData},
		{"DropsCurrentDataWhenNoRoom", en, 3, "en", runes(enNoData) + 1, enNoData},
		{"CutsCurrentTopic", en, 3, "en", runes(enCutTopic), enCutTopic},
		{"DropsCountBeforeTopic", en, 3, "en", runes(enBareCut), enBareCut},
		{"TooSmall", en, 3, "en", 10, ""},
		{"UnknownCurrentIsNewest", en, 99, "en", runes(enFolded), enFolded},
		{"Russian", ru, 3, "ru", 3000, ruFull},
		{"RussianFolded", ru, 3, "ru", runes(ruFolded), ruFolded},
		{"CurrentInTheMiddleKeepsItsPlace", ru, 1, "ru", runes(ruMiddle), ruMiddle},
		{
			"OneAnchorNoData", []anchors.Anchor{{ID: 5, Topic: "погода"}}, 5, "ru", 100,
			"[ТЕМЫ ДИАЛОГА: погода]",
		},
		{"NoAnchors", nil, 0, "ru", 3000, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := anchors.Block(tt.anchors, tt.currentID, tt.lang, tt.budget)
			if got != tt.want {
				t.Errorf("Block(budget %d) =\n%s\nwant\n%s", tt.budget, got, tt.want)
			}
			if tt.budget > 0 && runes(got) > tt.budget {
				t.Errorf("Block is %d runes, budget %d", runes(got), tt.budget)
			}
		})
	}
}

func TestBlockRussianPlurals(t *testing.T) {
	tests := []struct {
		hidden int
		want   string
	}{
		{1, "(ещё 1 тема)"},
		{2, "(ещё 2 темы)"},
		{5, "(ещё 5 тем)"},
		{11, "(ещё 11 тем)"},
		{21, "(ещё 21 тема)"},
		{22, "(ещё 22 темы)"},
		{14, "(ещё 14 тем)"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.hidden), func(t *testing.T) {
			var as []anchors.Anchor
			for i := range tt.hidden + 1 {
				topic := fmt.Sprintf("тема номер %d с длинным хвостом описания", i)
				as = append(as, anchors.Anchor{ID: int64(i + 1), Topic: topic, CharPos: int64(i)})
			}
			got := anchors.Block(as, int64(tt.hidden+1), "ru", 80)
			if !strings.Contains(got, tt.want) {
				t.Errorf("Block = %q, want it to hold %q", got, tt.want)
			}
		})
	}
}

// TestBlockFits checks over random anchors that the block never exceeds
// its budget, and that it shows the current anchor's topic whenever the
// budget is at least 200 runes.
func TestBlockFits(t *testing.T) {
	rng := rand.New(rand.NewPCG(60, 5000))
	for i := range 1500 {
		n := rng.IntN(61)
		as := make([]anchors.Anchor, n)
		for j := range as {
			as[j] = anchors.Anchor{
				ID:      int64(j + 1),
				Topic:   randomText(rng, 1+rng.IntN(60)),
				Data:    randomText(rng, rng.IntN(anchors.MaxData+1)),
				CharPos: int64(rng.IntN(100000)),
			}
		}
		var currentID int64
		if n > 0 {
			currentID = as[rng.IntN(n)].ID
		}
		budget := 50 + rng.IntN(4951)
		lang := []string{"ru", "en"}[rng.IntN(2)]

		got := anchors.Block(as, currentID, lang, budget)
		if runes(got) > budget {
			t.Fatalf("#%d: %d anchors, budget %d: block is %d runes:\n%s", i, n, budget, runes(got), got)
		}
		if !utf8.ValidString(got) {
			t.Fatalf("#%d: invalid UTF-8: %q", i, got)
		}
		if n == 0 {
			if got != "" {
				t.Fatalf("#%d: no anchors gave %q", i, got)
			}
			continue
		}
		topic := strings.Join(strings.Fields(as[indexOf(as, currentID)].Topic), " ")
		if budget >= 200 && !strings.Contains(got, topic) {
			t.Fatalf("#%d: budget %d: block lost the current topic %q:\n%s", i, budget, topic, got)
		}
	}
}

func indexOf(as []anchors.Anchor, id int64) int {
	for i, a := range as {
		if a.ID == id {
			return i
		}
	}
	return -1
}

// randomText returns about n runes of Cyrillic and Latin words, numbers and
// separators, sometimes with line breaks and "; ".
func randomText(rng *rand.Rand, n int) string {
	words := []string{
		"прайс", "ЛДСП", "расчёт", "стоимости", "Итого:", "руб", "₽", "доставка", "конвертация",
		"price", "list", "total", "$", "шт", "очень-длинное-слово-без-пробелов-для-проверки", "—", ";", "\n",
	}
	var b strings.Builder
	for count := 0; count < n; {
		w := words[rng.IntN(len(words))]
		if rng.IntN(3) == 0 {
			w = fmt.Sprint(rng.IntN(100000))
		}
		b.WriteString(w + " ")
		count += runes(w) + 1
	}
	return firstN(b.String(), n)
}

func firstN(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
