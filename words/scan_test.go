package words_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"yakor/words"
)

func TestSentences(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"", nil},
		{"  \n  ", nil},
		{
			"Прайс:\n- ЛДСП 16 мм — 3 400 руб/лист; ДВП | **Итого:** 4 310 ₽",
			[]string{"Прайс:", "ЛДСП 16 мм — 3 400 руб/лист", "ДВП", "Итого: 4 310 ₽"},
		},
		{
			"Цена 327.39₽ за м². Берём 3 тыс. руб на запас. ok",
			[]string{"Цена 327.39₽ за м².", "Берём 3 тыс. руб на запас. ok"},
		},
		{"Really? Yes! Fine… `code` x.y end.", []string{"Really?", "Yes!", "Fine…", "code x.y end."}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, words.Sentences(tt.text)); diff != "" {
			t.Errorf("Sentences(%q) mismatch (-want +got):\n%s", tt.text, diff)
		}
	}
}

func TestScan(t *testing.T) {
	num, word, sym := words.NumberToken, words.WordToken, words.SymbolToken
	tests := []struct {
		text string
		want []words.Token
	}{
		{"", nil},
		{"итого: 285 600 руб/лист", []words.Token{{word, "итого"}, {sym, ":"}, {num, "285 600"}, {word, "руб"}, {sym, "/"}, {word, "лист"}}},
		{"2.57м² × 327,39₽ = 841.39₽", []words.Token{
			{num, "2.57"}, {word, "м"}, {sym, "²"}, {sym, "×"}, {num, "327,39"}, {sym, "₽"}, {sym, "="}, {num, "841.39"}, {sym, "₽"},
		}},
		{"1 2345 1\u00a0000", []words.Token{{num, "1"}, {num, "2345"}, {num, "1\u00a0000"}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, words.Scan(tt.text)); diff != "" {
			t.Errorf("Scan(%q) mismatch (-want +got):\n%s", tt.text, diff)
		}
	}
}

func TestIsUnitAndTotalMarker(t *testing.T) {
	for _, w := range []string{"руб", "рублей", "шт", "мм", "листов", "usd", "kg", "тыс", "percent"} {
		if !words.IsUnit(w) {
			t.Errorf("IsUnit(%q) = false", w)
		}
	}
	for _, w := range []string{"прайс", "итого", "price", ""} {
		if words.IsUnit(w) {
			t.Errorf("IsUnit(%q) = true", w)
		}
	}
	for _, w := range []string{"итого", "всего", "total", "суммы"} {
		if !words.IsTotalMarker(w) {
			t.Errorf("IsTotalMarker(%q) = false", w)
		}
	}
	if words.IsTotalMarker("руб") {
		t.Error(`IsTotalMarker("руб") = true`)
	}
}
