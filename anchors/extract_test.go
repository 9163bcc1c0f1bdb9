package anchors_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"yakor/anchors"
)

func TestOfflineExtract(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		exclude []string
		want    anchors.Extraction
	}{
		{
			"RussianPriceLine", "ЛДСП 16 мм — 3 400 руб/лист", nil,
			anchors.Extraction{Topic: "ЛДСП", Data: "ЛДСП 16 мм — 3 400 руб/лист", DataChanged: true, Source: "offline"},
		},
		{
			"RussianTotal", "Итого: 285 600 руб", nil,
			anchors.Extraction{Topic: "Итого", Data: "Итого: 285 600 руб", DataChanged: true, Source: "offline"},
		},
		{
			"Calculation", "3 × 1250 = 3750", nil,
			anchors.Extraction{Data: "3 × 1250 = 3750", DataChanged: true, Source: "offline"},
		},
		{
			"CalculationWithLatinX", "Площадь стола 1.2 x 0.8 = 0.96", nil,
			anchors.Extraction{Topic: "Площадь стола", Data: "Площадь стола 1.2 x 0.8 = 0.96", DataChanged: true, Source: "offline"},
		},
		{
			"ThanksHasNothing", "ok, спасибо", nil,
			anchors.Extraction{Source: "offline"},
		},
		{
			"EnglishThanksHasNothing", "Thanks, okay!", nil,
			anchors.Extraction{Source: "offline"},
		},
		{
			"EnglishPriceAndTotal",
			"Here is the price list: oak veneer board 18 mm costs $45 per sheet. Total: $1,350.", nil,
			anchors.Extraction{
				Topic:       "price list",
				Data:        "Here is the price list: oak veneer board 18 mm costs $45 per sheet; Total: $1,350",
				DataChanged: true, Source: "offline",
			},
		},
		{
			"EnglishQuestionNoData", "What is the weather like in Paris?", nil,
			anchors.Extraction{Topic: "weather", Source: "offline"},
		},
		{
			"NamesExcluded", "Каролина, расскажи про ВНЖ Казахстана", []string{"Каролина"},
			anchors.Extraction{Topic: "ВНЖ Казахстана", Source: "offline"},
		},
		{
			"FirstPhraseOfFirstSentence",
			"Нужен прайс на ЛДСП. Какие цены на ЛДСП у поставщика сегодня? ЛДСП берём у него.", nil,
			anchors.Extraction{Topic: "прайс на ЛДСП", Source: "offline"},
		},
		{
			"ItemsOfASentence", "Скидка 15% на фасады, доставка 2 дня", nil,
			anchors.Extraction{Topic: "Скидка", Data: "Скидка 15% на фасады; доставка 2 дня", DataChanged: true, Source: "offline"},
		},
		{
			"CurrencyWordWithoutNumberIsTopic", "Переведи итог в доллары", nil,
			anchors.Extraction{Topic: "итог в доллары", Source: "offline"},
		},
		{
			"CurrencyBeforeNumber", "The sofa costs €120", nil,
			anchors.Extraction{Topic: "sofa", Data: "The sofa costs €120", DataChanged: true, Source: "offline"},
		},
		{
			"YearIsNotData", "Мы переехали в Алматы в 2019 году", nil,
			anchors.Extraction{Topic: "Алматы", Source: "offline"},
		},
		{
			"EquationWithoutResultIsNotData", "Пусть x = 5, тогда посмотрим", nil,
			anchors.Extraction{Source: "offline"},
		},
		{
			"MarkdownBulletsAndLines",
			"Прайс:\n- ЛДСП 16 мм — 3 400 руб/лист\n- ДВП 3 мм — 910 руб/лист\n- **Итого:** 4 310 ₽\nДоставка бесплатно", nil,
			anchors.Extraction{
				Topic:       "Прайс: ЛДСП",
				Data:        "ЛДСП 16 мм — 3 400 руб/лист; ДВП 3 мм — 910 руб/лист; Итого: 4 310 ₽",
				DataChanged: true, Source: "offline",
			},
		},
		{
			"DecimalsAndAbbreviationsStayWhole",
			"Цена 327.39₽ за м². Берём 3 тыс. руб на запас.", nil,
			anchors.Extraction{
				Topic:       "Цена",
				Data:        "Цена 327.39₽ за м²; Берём 3 тыс. руб на запас",
				DataChanged: true, Source: "offline",
			},
		},
		{
			"ArticleExample",
			"ЛДСП Серый графит 2.57м² × 327.39₽ = 841.39₽ | ДВП Белый 0.67 × 91₽ = 60.61₽ | Итого: 1 050.19₽", nil,
			anchors.Extraction{
				Topic:       "ЛДСП Серый графит",
				Data:        "ЛДСП Серый графит 2.57м² × 327.39₽ = 841.39₽; ДВП Белый 0.67 × 91₽ = 60.61₽; Итого: 1 050.19₽",
				DataChanged: true, Source: "offline",
			},
		},
		{
			"RepeatedFragmentKeptOnce", "Итого: 100 руб\nИтого: 100 руб", nil,
			anchors.Extraction{Topic: "Итого", Data: "Итого: 100 руб", DataChanged: true, Source: "offline"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := anchors.OfflineExtract(tt.text, tt.exclude)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("OfflineExtract(%q) mismatch (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestOfflineExtractLongDataKeepsNewest(t *testing.T) {
	var lines []string
	for i := range 200 {
		lines = append(lines, fmt.Sprintf("Позиция %d — %d руб", i, 1000+i))
	}
	got := anchors.OfflineExtract(strings.Join(lines, "\n"), nil)

	if n := utf8.RuneCountInString(got.Data); n > anchors.MaxData {
		t.Fatalf("Data is %d runes, want at most %d", n, anchors.MaxData)
	}
	if !strings.HasSuffix(got.Data, lines[len(lines)-1]) {
		t.Errorf("Data does not end with the newest line %q: …%s", lines[len(lines)-1], got.Data[len(got.Data)-60:])
	}
	if strings.Contains(got.Data, lines[0]+";") {
		t.Errorf("Data kept the oldest line %q", lines[0])
	}
	// Whole fragments only: the first kept one is one of the lines.
	first, _, _ := strings.Cut(got.Data, "; ")
	if !strings.HasPrefix(first, "Позиция ") {
		t.Errorf("Data starts mid-fragment: %q", first)
	}
	// And nothing that fits was dropped: one more line would overflow.
	kept := strings.Count(got.Data, "; ") + 1
	if n := utf8.RuneCountInString(got.Data) + 2 + utf8.RuneCountInString(lines[len(lines)-1-kept]); n <= anchors.MaxData {
		t.Errorf("kept %d lines (%d runes with the next older), more fit", kept, n)
	}
	if !got.DataChanged {
		t.Error("DataChanged = false, want true")
	}
}
