package anchors_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"yakor/anchors"
	"yakor/llm"
)

// TestOfflineExtractFigures: price lists, calculations and tables keep
// their figures with what each measures, in both languages.
func TestOfflineExtractFigures(t *testing.T) {
	tests := []struct {
		name, text, topic, data string
	}{
		{
			"ReadmePriceList", // README, "Try it in the web chat"
			"Price list for the kitchen: oak board 3400 per sheet, birch panel 1250 per sheet, 12 sheets of oak in total.",
			"Price list for the kitchen", "oak board 3400 per sheet; birch panel 1250 per sheet; 12 sheets of oak in total",
		},
		{
			"ReadmeCommandLine", // README, "The same from the command line"
			"Price list: board 3400, panel 1250",
			"Price list: board", "board 3400; panel 1250",
		},
		{
			"RussianPriceListBareNumbers",
			"Прайс на ЛДСП: Egger 3400, Kronospan 2950, Lamarty 2700 руб за лист.",
			"Прайс на ЛДСП: Egger", "Egger 3400; Kronospan 2950; Lamarty 2700 руб за лист",
		},
		{
			"RussianCalculation",
			"Расчёт: 12 листов × 3400 = 40 800 руб, кромка 40 м × 25 = 1000 руб.",
			"Расчёт", "12 листов × 3400 = 40 800 руб; кромка 40 м × 25 = 1000 руб",
		},
		{
			"EnglishCalculation",
			"Oak: 12 sheets × 3400 = 40800, plus delivery 2500, so the total is 43300.",
			"Oak", "12 sheets × 3400 = 40800; plus delivery 2500; so the total is 43300",
		},
		{
			"ListUnderALeadInLine",
			"Supplier price list for December:\n- Egger chipboard 150\n- Kronospan MDF 547\n- Birch plywood 944",
			"Supplier price list for December", "Egger chipboard 150; Kronospan MDF 547; Birch plywood 944",
		},
		{
			"TableWithHeader",
			"Прайс на двери:\n| Модель | Цена | Срок |\n|---|---|---|\n| Классика | 12 500 | 5 дней |\n| Модерн | 15 900 | 7 дней |",
			"Прайс на двери", "Классика: Цена 12 500, Срок 5 дней; Модерн: Цена 15 900, Срок 7 дней",
		},
		{
			"TableWithoutHeader",
			"| Oak board | 3400 per sheet |\n| Birch panel | 1250 per sheet |",
			"Oak board", "Oak board: 3400 per sheet; Birch panel: 1250 per sheet",
		},
		{
			"PriceVerb", "The truck comes on Friday, delivery costs 2500.",
			"truck", "The truck comes on Friday, delivery costs 2500",
		},
		{"Charges", "The installation team charges 9000.", "installation team", "The installation team charges 9000"},
		{"IsAPrice", "The sofa is 31500", "sofa", "The sofa is 31500"},
		{"RussianPriceWord", "Доставка по Москве стоит 2500, за МКАД по договорённости.", "Доставка по Москве", "Доставка по Москве стоит 2500, за МКАД по договорённости"},
		{"ExchangeRate", "Переведи итог в доллары по курсу 74.62", "итог в доллары", "Переведи итог в доллары по курсу 74.62"},
		{"YearsAreNot", "I was born in 1990 and moved to Riga in 2019.", "Riga", ""},
		{"CountsWithoutUnitsAreNot", "We have 3 kids and 2 dogs.", "kids", ""},
		{"TimeIsNot", "Встреча с заказчиком в 15:00.", "Встреча с заказчиком", ""},
		{"VersionsAreNot", "Я работаю над миграцией Postgres 14 на Postgres 16", "миграцией Postgres 14 на Postgres 16", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := anchors.Extraction{Topic: tt.topic, Data: tt.data, DataChanged: tt.data != "", Source: anchors.SourceOffline}
			if diff := cmp.Diff(want, anchors.OfflineExtract(tt.text, nil)); diff != "" {
				t.Errorf("OfflineExtract(%q) mismatch (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

// TestOfflineExtractSkipsOfflineReplies: the offline model's replies, in
// both languages, with their notice and without it, give no topic and no
// data, though they quote a price list; the price list itself does.
func TestOfflineExtractSkipsOfflineReplies(t *testing.T) {
	for _, tc := range []struct{ list, question string }{
		{"Price list: board 3400, panel 1250", "What does a board cost?"},
		{"Прайс: доска 3400 руб, панель 1250 руб", "Сколько стоит доска?"},
		{"Итого по прайсу: 4650 руб", "Напомни итого"},
	} {
		// The conversation's first reply: its notice, then its quote.
		msgs := []llm.Message{{Role: "user", Content: tc.list}, {Role: "user", Content: tc.question}}
		res, err := llm.NewOffline().Complete(context.Background(), llm.Request{Messages: msgs})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Text, "3400") && !strings.Contains(res.Text, "4650") {
			t.Fatalf("the offline reply does not quote the price list, the test tests nothing: %q", res.Text)
		}
		_, body, _ := strings.Cut(res.Text, "\n\n")
		if body == "" {
			t.Fatalf("the offline reply has no notice to leave out, the test tests half: %q", res.Text)
		}
		for _, reply := range []string{res.Text, body} {
			if got := anchors.OfflineExtract(reply, nil); got != (anchors.Extraction{Source: anchors.SourceOffline}) {
				t.Errorf("OfflineExtract(%q) = %+v, want nothing", reply, got)
			}
		}
		if got := anchors.OfflineExtract(tc.list, nil); got.Topic == "" || got.Data == "" {
			t.Errorf("OfflineExtract(%q) = %+v, want its topic and data", tc.list, got)
		}
	}
}

// TestOfflineExtractListEnds: a lead-in alone on its line opens a list
// whose items are key data; a blank line ends it, and a later sentence
// with numbers that is no price is not taken for one.
func TestOfflineExtractListEnds(t *testing.T) {
	t.Parallel()
	got := anchors.OfflineExtract("Прайс:\n- ЛДСП 3400\n- ДВП 910\n\nУ нас 3 детей и 2 собаки.", nil)
	if !strings.Contains(got.Data, "3400") || !strings.Contains(got.Data, "910") || strings.Contains(got.Data, "собак") {
		t.Errorf("data %q, want the list's two prices alone", got.Data)
	}
}

// TestOfflineExtractKeepsTheUsersLines: a user's message that holds a
// line of the offline model's wording keeps its own lines' data.
func TestOfflineExtractKeepsTheUsersLines(t *testing.T) {
	t.Parallel()
	got := anchors.OfflineExtract("Noted.\nPrice list for the kitchen: oak board 3400 per sheet", nil)
	if !strings.Contains(got.Data, "3400") {
		t.Errorf("data %q, want the price list's", got.Data)
	}
}

// TestOfflineExtractPriceWords: "цена" in its forms speaks of a price;
// "центр" and "ценность", which start alike, do not.
func TestOfflineExtractPriceWords(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]bool{
		"Цена за лист 3400":           true,
		"По ценам поставщика 3400":    true,
		"Торговый центр на 5 этажей.": false,
		"Ценность 5":                  false,
	} {
		if got := anchors.OfflineExtract(text, nil).Data != ""; got != want {
			t.Errorf("OfflineExtract(%q) has data: %v, want %v", text, got, want)
		}
	}
}
