package words_test

import (
	"testing"

	"yakor/words"
)

func TestSimilarity(t *testing.T) {
	tests := []struct {
		name     string
		a, b     string
		min, max float64
	}{
		{"Identical", "прайс ЛДСП", "прайс ЛДСП", 1, 1},
		{"IdenticalEnglish", "price list", "price list", 1, 1},
		{"CaseAndInflection", "прайс ЛДСП", "прайса лдсп", 1, 1},
		{"RussianInflection", "расчёт стоимости шкафа", "расчет стоимость шкафов", 0.8, 1},
		{"RussianInflectionPlural", "конвертация валют", "конвертации валюты", 0.8, 1},
		{"EnglishInflection", "calculating costs", "cost calculation", 0.8, 1},
		{"Subset", "прайс ЛДСП", "прайс ЛДСП Egger", 1, 1},
		{"PartialOverlap", "прайс ЛДСП", "прайс МДФ Egger", 0.3, 0.8},
		{"Unrelated", "прайс ЛДСП", "погода в Москве", 0, 0.2},
		{"UnrelatedEnglish", "price list", "weather forecast", 0, 0.2},
		{"StopWordsOnly", "ok", "ok", 1, 1},
		{"EmptyA", "", "прайс", 0, 0},
		{"EmptyBoth", "", "", 0, 0},
		{"Blank", "  ", "  ", 0, 0},
	}
	cached := words.NewSimilarity()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ab, ba := words.Similarity(tt.a, tt.b), words.Similarity(tt.b, tt.a)
			for range 2 { // the second time from its cache
				if c := cached(tt.a, tt.b); c != ab {
					t.Errorf("NewSimilarity()(%q, %q) = %v, Similarity %v", tt.a, tt.b, c, ab)
				}
			}
			if ab != ba {
				t.Errorf("not symmetric: Similarity(%q, %q) = %v, reversed %v", tt.a, tt.b, ab, ba)
			}
			if ab < tt.min || ab > tt.max {
				t.Errorf("Similarity(%q, %q) = %v, want in [%v, %v]", tt.a, tt.b, ab, tt.min, tt.max)
			}
		})
	}
}
