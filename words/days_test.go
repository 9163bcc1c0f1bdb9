package words_test

import (
	"testing"
	"time"

	"yakor/words"
)

// TestDays: each phrase's span, whether it is relative, and the day it
// resolves to, said on Wednesday 2026-03-11 (or the day given).
func TestDays(t *testing.T) {
	wed := time.Date(2026, 3, 11, 22, 30, 0, 0, time.FixedZone("MSK", 3*3600)) // 19:30 UTC, still Wednesday
	sun := time.Date(2026, 3, 15, 9, 0, 0, 0, time.UTC)
	dec := time.Date(2026, 12, 20, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		text     string
		at       time.Time
		phrase   string // "" for no phrase at all
		relative bool
		date     string // "" for no date
	}{
		{"Дедлайн в пятницу", wed, "пятницу", true, "2026-03-13"},
		{"due by Friday EOD", wed, "Friday", true, "2026-03-13"},
		{"Meeting on Wednesday", wed, "Wednesday", true, "2026-03-18"},
		{"this Wednesday", wed, "this Wednesday", true, "2026-03-11"},
		{"next Monday", wed, "next Monday", true, "2026-03-16"},
		{"next Friday", wed, "next Friday", true, "2026-03-20"},
		{"в следующую пятницу", wed, "следующую пятницу", true, "2026-03-20"},
		{"в эту пятницу", wed, "эту пятницу", true, "2026-03-13"},
		{"в пятницу на следующей неделе", wed, "пятницу на следующей неделе", true, "2026-03-20"},
		{"на следующей неделе в четверг", wed, "следующей неделе в четверг", true, "2026-03-19"},
		{"next week on Tuesday", wed, "next week on Tuesday", true, "2026-03-17"},
		{"last Friday", wed, "last Friday", true, "2026-03-06"},
		{"в прошлый вторник", wed, "прошлый вторник", true, "2026-03-10"},
		{"next Monday", sun, "next Monday", true, "2026-03-16"},
		{"завтра", wed, "завтра", true, "2026-03-12"},
		{"послезавтра утром", wed, "послезавтра", true, "2026-03-13"},
		{"the day after tomorrow", wed, "day after tomorrow", true, "2026-03-13"},
		{"до завтрашнего утра", wed, "завтрашнего", true, "2026-03-12"},
		{"today", wed, "today", true, "2026-03-11"},
		{"через неделю", wed, "через неделю", true, "2026-03-18"},
		{"через две недели", wed, "через две недели", true, "2026-03-25"},
		{"через 3 дня", wed, "через 3 дня", true, "2026-03-14"},
		{"через месяц", wed, "через месяц", true, "2026-04-11"},
		{"in a week", wed, "in a week", true, "2026-03-18"},
		{"in a couple of weeks", wed, "in a couple of weeks", true, "2026-03-25"},
		{"within 10 days", wed, "within 10 days", true, "2026-03-21"},
		{"a week from now", wed, "a week from now", true, "2026-03-18"},
		{"two days ago", wed, "two days ago", true, "2026-03-09"},
		{"неделю назад", wed, "неделю назад", true, "2026-03-04"},
		{"end of the month", wed, "end of the month", true, "2026-03-31"},
		{"до конца следующего месяца", wed, "конца следующего месяца", true, "2026-04-30"},
		{"end of the week", wed, "end of the week", true, "2026-03-13"},
		{"до конца недели", sun, "конца недели", true, ""},
		{"end of next week", wed, "end of next week", true, "2026-03-20"},
		{"к концу квартала", wed, "концу квартала", true, "2026-03-31"},
		{"by the end of the year", wed, "end of the year", true, "2026-12-31"},
		{"end of last month", wed, "end of last month", true, "2026-02-28"},
		{"до конца прошлого месяца", wed, "конца прошлого месяца", true, "2026-02-28"},
		{"end of last week", wed, "end of last week", true, "2026-03-06"},
		{"end of last quarter", wed, "end of last quarter", true, "2025-12-31"},
		{"Python 3.11", wed, "", false, ""},
		{"end of April", wed, "end of April", false, "2026-04-30"},
		{"до конца марта", wed, "конца марта", false, "2026-03-31"},
		{"March 1, 2026", wed, "March 1, 2026", false, "2026-03-01"},
		{"by April 3rd", wed, "April 3rd", false, "2026-04-03"},
		{"the 5th of May", wed, "5th of May", false, "2026-05-05"},
		{"15 марта", wed, "15 марта", false, "2026-03-15"},
		{"к 1-го апреля 2027 года", wed, "1-го апреля 2027 года", false, "2027-04-01"},
		{"15 января", dec, "15 января", false, "2027-01-15"},
		{"1 марта", wed, "1 марта", false, "2026-03-01"},
		{"30 февраля", wed, "30 февраля", false, ""},
		{"due on the 20th", wed, "20th", true, "2026-03-20"},
		{"до 5-го числа", wed, "5-го числа", true, "2026-04-05"},
		{"on the 5 of", wed, "", false, ""},
		{"2026-04-01", wed, "2026-04-01", false, "2026-04-01"},
		{"до 20.03", wed, "20.03", false, "2026-03-20"},
		{"до 20.03.2026", time.Time{}, "20.03.2026", false, "2026-03-20"},
		{"15 марта", time.Time{}, "15 марта", false, ""},
		{"в пятницу", time.Time{}, "пятницу", true, ""},
		{"next week", wed, "next week", true, ""},
		{"в следующем месяце", wed, "следующем месяце", true, ""},
		{"на выходных", wed, "выходных", true, ""},
		{"Go 1.22 and PostgreSQL 16", wed, "", false, ""},
		{"a price of 3400 per sheet", wed, "", false, ""},
		{"в 5 минут", wed, "", false, ""},
		{"Это хорошая идея", wed, "", false, ""},
	}
	for _, tt := range tests {
		days := words.Days(tt.text, tt.at)
		if tt.phrase == "" {
			if len(days) != 0 {
				t.Errorf("Days(%q) = %+v, want none", tt.text, days)
			}
			continue
		}
		if len(days) == 0 {
			t.Errorf("Days(%q) = none, want %q", tt.text, tt.phrase)
			continue
		}
		d := days[0]
		date := ""
		if !d.Date.IsZero() {
			date = d.Date.Format(time.DateOnly)
		}
		if got := tt.text[d.Start:d.End]; got != tt.phrase || d.Relative != tt.relative || date != tt.date {
			t.Errorf("Days(%q)[0] = %q relative %v date %q, want %q %v %q", tt.text, got, d.Relative, date, tt.phrase, tt.relative, tt.date)
		}
	}
}

// TestHasRelativeDay: what the summary stamps with the day it was said.
func TestHasRelativeDay(t *testing.T) {
	for text, want := range map[string]bool{
		"The delivery comes tomorrow at 10.":          true,
		"Встреча в пятницу в 15:00.":                  true,
		"Could you check the tax rate next week?":     true,
		"мы созвонимся на следующей неделе":           true,
		"Это было три дня назад":                      true,
		"this year's plan":                            true,
		"See you on the weekend":                      true,
		"Noted: 12 boards, 40,800 RUB in all.":        false,
		"The deadline is March 1, 2026.":              false,
		"Встреча 15 марта":                            false,
		"Срок — пять рабочих дней":                    false,
		"Pay by the 20th":                             true,
		"A week is a long time in politics, friends.": false,
	} {
		if got := words.HasRelativeDay(text); got != want {
			t.Errorf("HasRelativeDay(%q) = %v, want %v", text, got, want)
		}
	}
	if got := words.WeekdayName(time.Friday, "ru"); got != "пятница" {
		t.Errorf("WeekdayName(Friday, ru) = %q", got)
	}
}
