package history

// Dating a summary's items that name a day by the day they were said
// ("tomorrow", "last Friday", "в пятницу"; words.HasRelativeDay): once
// summarized, an item no longer stands beside its message's time, so it
// keeps that day itself.

import (
	"regexp"
	"time"
	"unicode/utf8"

	"yakor/words"
)

// sumWeekdaysRU are the Russian short weekday names, Sunday first.
var sumWeekdaysRU = [7]string{"вс", "пн", "вт", "ср", "чт", "пт", "сб"}

// SaidOn is what a text (a summary's item, a fact) said at at ends with
// when it names a day relative to when it was said: that day (UTC), with
// its weekday so that "on Saturday" can be resolved, in the text's
// language: " (said on Fri 2026-11-27)", " (сказано в пт 2026-11-27)".
// It is "" for a text that names no such day, or when at is unknown.
func SaidOn(item string, at time.Time) string {
	if at.IsZero() || !words.HasRelativeDay(item) {
		return ""
	}
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
// dated with SaidOn within that length.
func sumItem(s string, at time.Time) string {
	stamp := SaidOn(s, at)
	return sumClip(s, sumItemRunes-utf8.RuneCountInString(stamp)) + stamp
}

// Undated returns a summary item without the day it was said (its stamp,
// see OfflineSummary): what it says, to match against answers or evidence.
func Undated(item string) string { return sumStampRE.ReplaceAllString(item, "") }
