package words

import "strings"

// IsUnit reports whether a folded word is a unit, a currency or a
// magnitude ("руб", "рублей", "шт", "мм", "листов", "usd", "kg", "тыс").
func IsUnit(w string) bool {
	switch w {
	case "р", "руб", "коп", "евро", "usd", "eur", "rub", "kzt", "gbp", "cny", "jpy", "uah", "byn",
		"шт", "м", "мм", "см", "дм", "км", "кв", "кг", "гр", "т", "л", "мл", "ч", "мин", "сек", "мес",
		"метр", "метра", "метров", "метрах", "метры", "грамм", "грамма", "граммов",
		"тонна", "тонны", "тонн", "тонну", "час", "часа", "часов", "часах",
		"дн", "день", "дня", "дней", "дни", "гб", "мб", "кб", "тб", "тыс", "млн", "млрд", "трлн",
		"pcs", "pc", "kg", "lb", "lbs", "oz", "m", "mm", "cm", "km", "sqm", "ml",
		"h", "hr", "hrs", "min", "mins", "sec", "gb", "mb", "kb", "tb", "k", "bn",
		"euro", "euros", "ruble", "rubles", "rouble", "roubles", "cent", "cents",
		"piece", "pieces", "unit", "units", "sheet", "sheets", "meter", "meters", "metre", "metres",
		"gram", "grams", "ton", "tons", "tonne", "tonnes", "liter", "liters", "litre", "litres",
		"second", "seconds", "day", "days", "week", "weeks", "month", "months",
		"thousand", "thousands", "million", "millions", "billion", "billions":
		return true
	}
	for _, p := range [...]string{
		"рубл", "копе", "доллар", "тенге", "юан", "штук", "лист", "упаков", "пачк", "рулон",
		"сантиметр", "миллиметр", "километр", "килограмм", "литр", "минут", "секунд", "недел",
		"месяц", "процент", "dollar", "kilogram", "hour", "minute", "percent",
	} {
		if strings.HasPrefix(w, p) {
			return true
		}
	}
	return false
}

// IsTotalMarker reports whether a folded word announces a total.
func IsTotalMarker(w string) bool {
	switch w {
	case "итого", "итог", "всего", "total", "totals", "subtotal", "sum":
		return true
	}
	return strings.HasPrefix(w, "сумм")
}
