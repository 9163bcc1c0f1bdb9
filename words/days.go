package words

// Days: the phrases of a text that name a day, absolute ("15 марта 2026",
// "March 1", "2026-03-01") or relative to when the text was said
// ("tomorrow", "в пятницу", "next Monday", "через неделю"), resolved to
// dates. One vocabulary for every package that dates what it keeps: the
// summary stamps an item that names a relative day (HasRelativeDay), the
// fact extractor writes a deadline's date (Days).

import (
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Day is a phrase of a text that names a day, or a period relative to when
// the text was said (see Days).
type Day struct {
	Start, End int       // the phrase's bytes in the text
	Relative   bool      // named relative to when the text was said ("tomorrow", "в пятницу", "next week")
	Date       time.Time // the day meant, midnight UTC; zero when the phrase names no single day ("next week", "3 weeks ago" aside) or it cannot be told (a relative phrase, or a day without its year, with no time said)
}

// Days returns the phrases of text that name days, in order, each resolved
// against at, when the text was said (zero: unknown), in UTC days:
//   - today, tonight, EOD, tomorrow, the day after tomorrow, yesterday,
//     сегодня, завтра, послезавтра, вчера, позавчера: that day;
//   - a weekday ("Friday", "в пятницу", "by Friday"): the first after the
//     day said (a week on when it is that weekday); "this/coming Friday",
//     "в эту/ближайшую пятницу": the first on or after it; "next Friday",
//     "в следующую пятницу", and a weekday beside "next week" / "на
//     следующей неделе": that weekday of the next week (weeks start on
//     Monday); "last Friday", "в прошлую пятницу": the last one before;
//   - "in 3 days", "in a week", "in two weeks", "через неделю", "через 2
//     месяца", "через пару дней", "a week from now"; "3 days ago", "неделю
//     назад": that many days, weeks or months on (or back);
//   - "end of the day/week/month/quarter/year" (also "of next week/month",
//     "of March"), "конец/до конца дня/недели/месяца/квартала/года/марта":
//     that day, the week's Friday (none when said on a weekend), the last
//     day of the month, quarter or year;
//   - "March 1", "1st of March", "March 1, 2026", "1 марта", "1-го марта
//     2026", "2026-03-01", "01.03", "01.03.2026": that day; without a year,
//     the first such day not more than 60 days before the day said;
//   - a period relative to the day said with no single day ("next week",
//     "в следующем месяце", "this year", "weekend", "выходные", "ago"):
//     Relative, zero Date.
func Days(text string, at time.Time) []Day {
	toks := dayTokens(text)
	var today time.Time
	if !at.IsZero() {
		at = at.UTC()
		today = time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC)
	}
	var out []Day
	for i := 0; i < len(toks); {
		d, n := dayAt(toks, i, today)
		if n == 0 {
			i++
			continue
		}
		d.Start, d.End = toks[i].start, toks[i+n-1].end
		out = append(out, d)
		i += n
	}
	return out
}

// HasRelativeDay reports whether text names a day or a period relative to
// when it was said ("tomorrow", "last Friday", "в пятницу", "next week").
func HasRelativeDay(text string) bool {
	return slices.ContainsFunc(Days(text, time.Time{}), func(d Day) bool { return d.Relative })
}

// WeekdayName is d's name in lang ("ru": "пятница", else "Friday").
func WeekdayName(d time.Weekday, lang string) string {
	if lang == "ru" {
		return dayWeekdaysRU[d]
	}
	return d.String()
}

// dayTok is one word (folded) or number of a text, with its bytes.
type dayTok struct {
	w          string
	start, end int
	num        bool
}

// dayTokens splits text into words and numbers; a number keeps the dots,
// dashes and slashes between its digits ("2026-03-01", "01.03").
func dayTokens(text string) []dayTok {
	var out []dayTok
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		j := i + n
		switch {
		case unicode.IsLetter(r):
			for j < len(text) {
				r2, n2 := utf8.DecodeRuneInString(text[j:])
				if !unicode.IsLetter(r2) {
					break
				}
				j += n2
			}
			out = append(out, dayTok{w: Fold(text[i:j]), start: i, end: j})
		case unicode.IsDigit(r):
			for j < len(text) {
				r2, n2 := utf8.DecodeRuneInString(text[j:])
				if next, _ := utf8.DecodeRuneInString(text[min(j+n2, len(text)):]); !unicode.IsDigit(r2) &&
					!(strings.ContainsRune(".-/", r2) && unicode.IsDigit(next)) {
					break
				}
				j += n2
			}
			out = append(out, dayTok{w: text[i:j], start: i, end: j, num: true})
		}
		i = j
	}
	return out
}

// Vocabulary of Days, folded.
var (
	dayOffsets = map[string]int{"today": 0, "tonight": 0, "eod": 0, "сегодня": 0, "tomorrow": 1, "завтра": 1,
		"послезавтра": 2, "yesterday": -1, "вчера": -1, "позавчера": -2}
	dayOffsetStems = map[string]int{"сегодняшн": 0, "завтрашн": 1, "вчерашн": -1}
	dayWeekdaysRU  = [7]string{"воскресенье", "понедельник", "вторник", "среда", "четверг", "пятница", "суббота"}
	dayWeekdays    = dayWeekdayForms()
	dayMonths      = dayMonthForms()
	// dayCounts are the number words before a unit ("in two weeks").
	dayCounts = map[string]int{"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
		"seven": 7, "eight": 8, "nine": 9, "ten": 10, "couple": 2, "один": 1, "одну": 1, "одна": 1, "два": 2,
		"две": 2, "пару": 2, "пара": 2, "три": 3, "четыре": 4, "пять": 5, "шесть": 6, "семь": 7, "восемь": 8,
		"девять": 9, "десять": 10}
	// dayPeriods are the periods a modifier makes relative ("next week").
	dayPeriods = []string{"week", "month", "year", "quarter", "недел", "месяц", "год", "квартал"}
	// dayWords stand for a relative period alone.
	dayWords = []string{"weekend", "weekends", "ago", "выходные", "выходных", "выходным", "назад"}
)

// dayWeekdayForms maps each weekday's English name and Russian forms to
// it.
func dayWeekdayForms() map[string]time.Weekday {
	m := map[string]time.Weekday{}
	ru := [7]string{"воскресень:е я ю ем", "понедельник:_ а у ом", "вторник:_ а у ом", "сред:а у ы е ой",
		"четверг:_ а у ом", "пятниц:а у ы е ей", "суббот:а у ы е ой"}
	for d := time.Sunday; d <= time.Saturday; d++ {
		m[Fold(d.String())] = d
		stem, ends, _ := strings.Cut(ru[d], ":")
		for _, e := range strings.Fields(ends) {
			m[stem+strings.Trim(e, "_")] = d
		}
	}
	return m
}

// dayMonthForms maps each month's English names and Russian forms to it.
func dayMonthForms() map[string]time.Month {
	m := map[string]time.Month{"sept": time.September, "май": time.May, "мая": time.May, "мае": time.May}
	ru := [12]string{"январ", "феврал", "март", "апрел", "", "июн", "июл", "август", "сентябр", "октябр", "ноябр", "декабр"}
	for mo := time.January; mo <= time.December; mo++ {
		name := Fold(mo.String())
		m[name], m[name[:3]] = mo, mo
		if ru[mo-1] != "" {
			for _, e := range []string{"ь", "я", "е", "а", ""} {
				if ru[mo-1] != "март" || e == "а" || e == "е" || e == "" {
					m[ru[mo-1]+e] = mo
				}
			}
		}
	}
	return m
}

// dayPrefixed reports whether w starts with one of stems.
func dayPrefixed(w string, stems ...string) bool {
	return slices.ContainsFunc(stems, func(s string) bool { return strings.HasPrefix(w, s) })
}

// dayModifier classifies a word before a weekday or a period: "next",
// "this", "last", or "".
func dayModifier(w string) string {
	switch {
	case w == "next" || w == "following" || dayPrefixed(w, "следующ"):
		return "next"
	case w == "this" || w == "coming" || w == "current" || dayPrefixed(w, "ближайш", "текущ") ||
		slices.Contains([]string{"эта", "этот", "эту", "этой", "этом", "этого", "это", "эти"}, w):
		return "this"
	case w == "last" || w == "previous" || dayPrefixed(w, "прошл", "предыдущ"):
		return "last"
	}
	return ""
}
