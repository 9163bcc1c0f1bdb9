package words_test

import (
	"testing"

	"yakor/words"
)

func TestTopic(t *testing.T) {
	tests := []struct {
		name, text string
		exclude    []string
		want       string
	}{
		{"Empty", "", nil, ""},
		{"NoKeywords", "ok, спасибо", nil, ""},
		{"AtMostThreeInOrder", "alpha bravo charlie delta echo", nil, "alpha bravo charlie"},
		{"RepeatedAcronymWins", "Нужен прайс на ЛДСП. Какие цены на ЛДСП у поставщика сегодня? ЛДСП берём у него.", nil, "прайс лдсп поставщика"},
		{"MentionsCountBySentence", "First line about kitchens.\nSecond line about kitchens and sinks.", nil, "first line kitchens"},
		{"AcronymCountsOncePerSentence", "API ключ для API сервера, API", nil, "api ключ сервера"},
		{"NamesExcluded", "Привет, Мелани! Как дела у Мелани с ВНЖ?", []string{"Мелани"}, "дела внж"},
		{"NumbersAndUnitsAfterThemAreNot", "Скидка 15% на фасады, доставка 2 дня", nil, "скидка фасады доставка"},
		{"CalendarWordAfterYearIsNot", "В 2019 году мы переехали", nil, "переехали"},
		{"OnlyWeakTotalMarkerOverVerb", "Посчитай итого", nil, "итого"},
		{"OnlyWeakUnitOverVerb", "Convert 100 usd please", nil, "usd"},
		{"OnlyAVerb", "Посчитай", nil, "посчитай"},
		{"UnitWithoutNumberIsStrong", "Переведи итог в доллары", nil, "доллары"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := words.Topic(tt.text, tt.exclude); got != tt.want {
				t.Errorf("Topic(%q, %q) = %q, want %q", tt.text, tt.exclude, got, tt.want)
			}
		})
	}
}
