package history

// Dating a summary's items that name a day by the day they were said
// ("tomorrow", "last Friday", "в пятницу"): once summarized, an item no
// longer stands beside its message's time, so it keeps that day itself.

import (
	"regexp"
	"time"
	"unicode/utf8"

	"yakor/words"
)

// sumRelativeWords name a day relative to when they were said; folded, "_"
// joins a pair of adjacent words.
var sumRelativeWords = sumSet(`today tonight tomorrow yesterday ago weekend
	monday tuesday wednesday thursday friday saturday sunday
	next_week last_week this_week next_month last_month this_month next_year last_year this_year
	сегодня завтра послезавтра вчера позавчера назад выходные выходных
	понедельник понедельника вторник вторника среда среду среды четверг четверга
	пятница пятницу пятницы суббота субботу субботы воскресенье воскресенья
	следующей_неделе прошлой_неделе этой_неделе следующем_месяце прошлом_месяце этом_месяце
	следующем_году прошлом_году этом_году`)

// sumWeekdaysRU are the Russian short weekday names, Sunday first.
var sumWeekdaysRU = [7]string{"вс", "пн", "вт", "ср", "чт", "пт", "сб"}

// sumStamp is what a dated item ends with: the day (UTC) it was said, with
// its weekday so that "on Saturday" can be resolved, in the item's
// language: " (said on Fri 2026-11-27)", " (сказано в пт 2026-11-27)".
func sumStamp(item string, at time.Time) string {
	at = at.UTC()
	if words.Lang(item) == "ru" {
		return " (сказано в " + sumWeekdaysRU[at.Weekday()] + " " + at.Format("2006-01-02") + ")"
	}
	return " (said on " + at.Format("Mon 2006-01-02") + ")"
}

// sumStampRE matches a stamp at an item's end.
var sumStampRE = regexp.MustCompile(` \((said on \w+|сказано в \pL+) \d{4}-\d{2}-\d{2}\)$`)

// sumItem is sentence s, said at at, as an item: cut to sumItemRunes and,
// when it names a day relative to when it was said (and at is known),
// dated with sumStamp within that length.
func sumItem(s string, at time.Time) string {
	if at.IsZero() || !sumHas(s, sumRelativeWords) {
		return sumClip(s, sumItemRunes)
	}
	stamp := sumStamp(s, at)
	return sumClip(s, sumItemRunes-utf8.RuneCountInString(stamp)) + stamp
}

// Undated returns a summary item without the day it was said (its stamp,
// see OfflineSummary): what it says, to match against answers or evidence.
func Undated(item string) string { return sumStampRE.ReplaceAllString(item, "") }
