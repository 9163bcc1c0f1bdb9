package words

// The phrase matchers of Days, each reading at one token.

import (
	"regexp"
	"slices"
	"strconv"
	"time"
)

// dayAt reads the phrase that starts at toks[i], against today (zero:
// unknown). It returns the day and how many tokens it spans (0: none).
func dayAt(toks []dayTok, i int, today time.Time) (Day, int) {
	for _, match := range []func([]dayTok, int, time.Time) (Day, int){dayEnd, dayCount, dayWeekday, dayRelative, dayNumeric, dayMonthDay} {
		if d, n := match(toks, i, today); n > 0 {
			return d, n
		}
	}
	return Day{}, 0
}

// dayWord returns toks[i]'s word, "" past the end or for a number.
func dayWord(toks []dayTok, i int) string {
	if i < 0 || i >= len(toks) || toks[i].num {
		return ""
	}
	return toks[i].w
}

// number returns toks[i] as a whole number of at most digits digits, or -1.
func number(toks []dayTok, i, digits int) int {
	if i >= len(toks) || !toks[i].num || len(toks[i].w) > digits {
		return -1
	}
	n, err := strconv.Atoi(toks[i].w)
	if err != nil {
		return -1
	}
	return n
}

// relative is the Relative day days from today (no date when today is
// unknown).
func relative(today time.Time, months, days int) Day {
	if today.IsZero() {
		return Day{Relative: true}
	}
	return Day{Relative: true, Date: today.AddDate(0, months, days)}
}

// fromMonday is d's place in a week that starts on Monday (0–6).
func fromMonday(d time.Weekday) int { return (int(d) + 6) % 7 }

// nextWeek is how many days after today wd of the next week is.
func nextWeek(today time.Time, wd time.Weekday) int {
	return 7 - fromMonday(today.Weekday()) + fromMonday(wd)
}

// nextWeekAround reports how many tokens "next week" / "следующей неделе"
// (maybe after "on", "в", "на") spans at toks[i], 0 if it is not there.
func nextWeekAround(toks []dayTok, i int) int {
	n := 0
	if slices.Contains([]string{"on", "в", "на", "of"}, dayWord(toks, i)) {
		n = 1
	}
	if dayModifier(dayWord(toks, i+n)) == "next" && dayPrefixed(dayWord(toks, i+n+1), "week", "недел") {
		return n + 2
	}
	return 0
}

// dayRelative reads "today", "завтра", "the day after tomorrow", a
// modified period ("next week", "в следующем месяце"; "next week on
// Friday" is that Friday) and the periods that stand alone ("weekend",
// "ago").
func dayRelative(toks []dayTok, i int, today time.Time) (Day, int) {
	w := dayWord(toks, i)
	switch {
	case w == "day" && dayWord(toks, i+1) == "after" && dayWord(toks, i+2) == "tomorrow":
		return relative(today, 0, 2), 3
	case w == "day" && dayWord(toks, i+1) == "before" && dayWord(toks, i+2) == "yesterday":
		return relative(today, 0, -2), 3
	}
	if off, ok := dayOffsets[w]; ok {
		return relative(today, 0, off), 1
	}
	for stem, off := range dayOffsetStems {
		if dayPrefixed(w, stem) {
			return relative(today, 0, off), 1
		}
	}
	if n := nextWeekAround(toks, i); n == 2 {
		skip := 0
		if slices.Contains([]string{"on", "в", "во"}, dayWord(toks, i+2)) {
			skip = 1
		}
		if wd, ok := dayWeekdays[dayWord(toks, i+2+skip)]; ok {
			return dayIn(today, wd, "next"), 3 + skip
		}
	}
	if dayModifier(w) != "" && w != "это" && dayPrefixed(dayWord(toks, i+1), dayPeriods...) {
		return Day{Relative: true}, 2
	}
	if slices.Contains(dayWords, w) {
		return Day{Relative: true}, 1
	}
	return Day{}, 0
}

// dayWeekday reads a weekday, maybe after "next", "this", "coming", "last"
// (and their Russian forms), maybe followed by "next week".
func dayWeekday(toks []dayTok, i int, today time.Time) (Day, int) {
	mod, n := dayModifier(dayWord(toks, i)), 0
	if mod != "" {
		n = 1
		if dayWord(toks, i+1) == "coming" {
			n = 2
		}
	}
	wd, ok := dayWeekdays[dayWord(toks, i+n)]
	if !ok {
		return Day{}, 0
	}
	if mod == "" {
		if k := nextWeekAround(toks, i+1); k > 0 {
			return dayIn(today, wd, "next"), 1 + k
		}
	}
	return dayIn(today, wd, mod), n + 1
}

// dayIn is weekday wd as mod ("next", "this", "last" or "") places it
// from today.
func dayIn(today time.Time, wd time.Weekday, mod string) Day {
	if today.IsZero() {
		return Day{Relative: true}
	}
	ahead := (int(wd) - int(today.Weekday()) + 7) % 7
	switch mod {
	case "next":
		return relative(today, 0, nextWeek(today, wd))
	case "this":
		return relative(today, 0, ahead)
	case "last":
		back := (7 - ahead) % 7
		if back == 0 {
			back = 7
		}
		return relative(today, 0, -back)
	}
	if ahead == 0 {
		ahead = 7
	}
	return relative(today, 0, ahead)
}

// dayUnit returns how many months and days one unit word stands for, ok
// false when w is none.
func dayUnit(w string) (months, days int, ok bool) {
	switch {
	case slices.Contains([]string{"day", "days", "день", "дня", "дней", "сутки", "суток"}, w):
		return 0, 1, true
	case w == "week" || w == "weeks" || dayPrefixed(w, "недел"):
		return 0, 7, true
	case w == "month" || w == "months" || dayPrefixed(w, "месяц"):
		return 1, 0, true
	case slices.Contains([]string{"year", "years", "год", "года", "лет"}, w):
		return 12, 0, true
	}
	return 0, 0, false
}

// dayCount reads "in|within|через [N] units", "N units ago|назад" and "N
// units from now|today".
func dayCount(toks []dayTok, i int, today time.Time) (Day, int) {
	lead := slices.Contains([]string{"in", "within", "через"}, dayWord(toks, i))
	j := i
	if lead {
		j++
	}
	count := number(toks, j, 3)
	if c, ok := dayCounts[dayWord(toks, j)]; ok {
		count = c
		if dayWord(toks, j) == "a" && dayWord(toks, j+1) == "couple" {
			count, j = 2, j+1
		}
		if dayWord(toks, j+1) == "of" {
			j++
		}
	}
	if count >= 0 {
		j++
	} else if dayWord(toks, i) == "через" || dayWord(toks, i+1) == "назад" {
		count = 1 // "через неделю", "неделю назад"
	} else {
		return Day{}, 0
	}
	months, days, ok := dayUnit(dayWord(toks, j))
	if !ok {
		return Day{}, 0
	}
	switch {
	case !lead && slices.Contains([]string{"ago", "назад"}, dayWord(toks, j+1)):
		return relative(today, -count*months, -count*days), j + 2 - i
	case !lead && dayWord(toks, j+1) == "from" && slices.Contains([]string{"now", "today"}, dayWord(toks, j+2)):
		return relative(today, count*months, count*days), j + 3 - i
	case lead:
		return relative(today, count*months, count*days), j + 1 - i
	}
	return Day{}, 0
}

// dayEnd reads "end of the day/week/month/quarter/year" (of this or the
// next one), "end of March", "конец/конца дня/недели/месяца/квартала/года/
// марта".
func dayEnd(toks []dayTok, i int, today time.Time) (Day, int) {
	j := i + 1
	switch w := dayWord(toks, i); {
	case w == "end" && dayWord(toks, j) == "of":
		j++
	case slices.Contains([]string{"конец", "конца", "концу", "конце"}, w):
	default:
		return Day{}, 0
	}
	if slices.Contains([]string{"the", "this"}, dayWord(toks, j)) {
		j++
	}
	mod := dayModifier(dayWord(toks, j))
	if mod != "" {
		j++
	}
	shift := map[string]int{"next": 1, "last": -1}[mod] // periods ahead of this one
	w := dayWord(toks, j)
	if m, ok := dayMonths[w]; ok {
		last := dayYear(today, m, 1, 0)
		if last.IsZero() {
			return Day{}, j + 1 - i
		}
		return Day{Date: last.AddDate(0, 1, -1)}, j + 1 - i
	}
	var d Day
	switch {
	case w == "day" || w == "дня":
		d = relative(today, 0, 0)
	case w == "week" || dayPrefixed(w, "недел"):
		d = relative(today, 0, 4-fromMonday(today.Weekday())+7*shift)
		if !today.IsZero() && shift == 0 && fromMonday(today.Weekday()) > 4 {
			d.Date = time.Time{} // "end of the week" said on a weekend
		}
	case w == "month" || dayPrefixed(w, "месяц"):
		d = dayPeriodEnd(today, 1, shift)
	case w == "quarter" || dayPrefixed(w, "квартал"):
		d = dayPeriodEnd(today, 3, shift)
	case w == "year" || w == "года" || w == "году":
		d = dayPeriodEnd(today, 12, shift)
	default:
		return Day{}, 0
	}
	return d, j + 1 - i
}

// dayPeriodEnd is the last day of the period of span months (1, 3, 12)
// that is shift periods from today's: this one for 0, the next for 1, the
// last for -1.
func dayPeriodEnd(today time.Time, span, shift int) Day {
	if today.IsZero() {
		return Day{Relative: true}
	}
	first := time.Date(today.Year(), time.Month((int(today.Month())-1)/span*span+1), 1, 0, 0, 0, 0, time.UTC)
	return Day{Relative: true, Date: first.AddDate(0, span*(1+shift), -1)}
}

// Dates written in digits: 2026-03-01, 01.03, 01.03.26, 01.03.2026.
var (
	dayISORe = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})$`)
	dayDotRe = regexp.MustCompile(`^(\d{1,2})\.(\d{2})(?:\.(\d{2}|\d{4}))?$`)
)

// dayNumeric reads a date written in digits.
func dayNumeric(toks []dayTok, i int, today time.Time) (Day, int) {
	if i >= len(toks) || !toks[i].num {
		return Day{}, 0
	}
	var y, m, d int
	if p := dayISORe.FindStringSubmatch(toks[i].w); p != nil {
		y, _ = strconv.Atoi(p[1])
		m, _ = strconv.Atoi(p[2])
		d, _ = strconv.Atoi(p[3])
	} else if p := dayDotRe.FindStringSubmatch(toks[i].w); p != nil && (p[3] != "" || len(p[1]) == 2) {
		// Without a year the day takes two digits: "3.11" is a version.
		d, _ = strconv.Atoi(p[1])
		m, _ = strconv.Atoi(p[2])
		if y, _ = strconv.Atoi(p[3]); y > 0 && y < 100 {
			y += 2000
		}
	} else {
		return Day{}, 0
	}
	if m < 1 || m > 12 || d < 1 || d > 31 {
		return Day{}, 0
	}
	return Day{Date: dayYear(today, time.Month(m), d, y)}, 1
}

// dayMonthDay reads "March 1", "March 1st, 2026", "1 March", "1st of
// March 2026", "1 марта", "1-го марта 2026 года".
func dayMonthDay(toks []dayTok, i int, today time.Time) (Day, int) {
	ordinal := func(j int) int {
		if slices.Contains([]string{"st", "nd", "rd", "th", "го", "е", "ое"}, dayWord(toks, j)) {
			return j + 1
		}
		return j
	}
	var m time.Month
	var d, j int
	if mo, ok := dayMonths[dayWord(toks, i)]; ok {
		if d = number(toks, i+1, 2); d < 1 {
			return Day{}, 0
		}
		m, j = mo, ordinal(i+2)
	} else if d = number(toks, i, 2); d >= 1 {
		j = ordinal(i + 1)
		if dayWord(toks, j) == "of" {
			j++
		}
		if m, ok = dayMonths[dayWord(toks, j)]; !ok {
			return dayOfMonth(toks, i, d, today)
		}
		j++
	} else {
		return Day{}, 0
	}
	y := number(toks, j, 4)
	if y >= 1900 {
		j++
		if slices.Contains([]string{"года", "год", "г"}, dayWord(toks, j)) {
			j++
		}
	} else {
		y = 0
	}
	if d > 31 {
		return Day{}, 0
	}
	return Day{Date: dayYear(today, m, d, y)}, j - i
}

// dayOfMonth reads a day of the month alone at toks[i], its number d:
// "the 20th", "20-го (числа)", "20 числа" — day d of this month, or of the
// next when it has passed.
func dayOfMonth(toks []dayTok, i, d int, today time.Time) (Day, int) {
	n := 2
	switch next := dayWord(toks, i+1); {
	case slices.Contains([]string{"st", "nd", "rd", "th"}, next) && dayWord(toks, i-1) == "the":
	case next == "го" && dayWord(toks, i+2) == "числа":
		n = 3
	case next == "го" || next == "числа":
	default:
		return Day{}, 0
	}
	if d > 31 || today.IsZero() {
		return Day{Relative: true}, n
	}
	m := today.AddDate(0, 0, 1-today.Day())
	if d < today.Day() {
		m = m.AddDate(0, 1, 0)
	}
	t := m.AddDate(0, 0, d-1)
	if t.Month() != m.Month() {
		return Day{Relative: true}, n
	}
	return Day{Relative: true, Date: t}, n
}

// dayYear is day d of month m in year y; without a year (0), the first
// such day not more than 60 days before today (zero when today is
// unknown). It is zero when there is no such day (February 30).
func dayYear(today time.Time, m time.Month, d, y int) time.Time {
	if y == 0 {
		if today.IsZero() {
			return time.Time{}
		}
		y = today.Year()
		if time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Before(today.AddDate(0, 0, -60)) {
			y++
		}
	}
	t := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d {
		return time.Time{}
	}
	return t
}
