package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"

	"yakor/postgres/pgtest"
)

// dayZone is the browser's time zone in TestBrowserThreadDays: far from
// UTC, so that a day of the server's clock is not the page's, and without
// daylight saving time.
const dayZone = "Asia/Vladivostok"

var (
	ruWeekdays = []string{"Воскресенье", "Понедельник", "Вторник", "Среда", "Четверг", "Пятница", "Суббота"}
	ruMonths   = []string{"января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября", "октября", "ноября", "декабря"}
)

// dayThread is a conversation last written days ago, with the sidebar's
// headings for its day in English and Russian.
type dayThread struct {
	title  string
	ago    int
	at     time.Time
	en, ru string
}

func dayHeadings(now time.Time, ago int) (at time.Time, en, ru string) {
	at = now.AddDate(0, 0, -ago)
	switch {
	case ago == 0:
		return at, "Today", "Сегодня"
	case ago == 1:
		return at, "Yesterday", "Вчера"
	case ago < 7:
		return at, at.Weekday().String(), ruWeekdays[at.Weekday()]
	case at.Year() == now.Year():
		return at, at.Format("January 2"), fmt.Sprintf("%d %s", at.Day(), ruMonths[at.Month()-1])
	}
	return at, at.Format("January 2, 2006"), fmt.Sprintf("%d %s %d г.", at.Day(), ruMonths[at.Month()-1], at.Year())
}

// dayAwayFromMidnight is the time in loc, after waiting, when it is close
// to midnight there, until a minute past it: the test's days must not
// change while it runs.
func dayAwayFromMidnight(loc *time.Location) time.Time {
	now := time.Now().In(loc)
	y, m, d := now.Date()
	next := time.Date(y, m, d+1, 0, 0, 0, 0, loc)
	if since := now.Sub(time.Date(y, m, d, 0, 0, 0, 0, loc)); since < time.Minute {
		time.Sleep(time.Minute - since)
	} else if until := next.Sub(now); until < 2*time.Minute {
		time.Sleep(until + time.Minute)
	}
	return time.Now().In(loc)
}

// TestBrowserThreadDays: the sidebar groups conversations by the day they
// were last written, in the page's time zone: Today, Yesterday, the
// weekday within the last week, then the date (with the year for another
// year's), in English and in Russian; each conversation still shows its
// time of day.
func TestBrowserThreadDays(t *testing.T) {
	url, _ := pgtest.NewURL(t)
	s := startServer(t, pgtest.DataDir(t), "--database-url", url, "--research-schedule", "off", "--log-level", "warn")
	loc, err := time.LoadLocation(dayZone)
	if err != nil {
		t.Fatal(err)
	}
	now := dayAwayFromMidnight(loc)
	var threads []dayThread
	for _, ago := range []int{0, 0, 1, 3, 10, 400} {
		at, en, ru := dayHeadings(now, ago)
		threads = append(threads, dayThread{title: fmt.Sprintf("Written %d days ago (%d)", ago, len(threads)), ago: ago, at: at, en: en, ru: ru})
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for i, th := range threads {
		var made struct{ ID string }
		if code := s.call(t, "POST", "/api/v1/threads", fmt.Sprintf(`{"title":%q}`, th.title), &made); code != http.StatusCreated {
			t.Fatalf("create thread: %d", code)
		}
		// A second apart, so that the order of today's two is known.
		at := th.at.Add(-time.Duration(i) * time.Second)
		threads[i].at = at
		if _, err := conn.Exec(ctx, `UPDATE threads SET created_at = $2, updated_at = $2 WHERE id = $1`, made.ID, at); err != nil {
			t.Fatalf("date a thread: %v", err)
		}
	}

	p := openTab(t, startChromium(t), "http://"+s.addr, 1280, 800, false)
	p.do("set the time zone", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: dayZone})
		return err
	}))
	p.navigate("/")
	sidebar := `[...document.querySelectorAll('[data-testid=thread-day]')].map((g) => g.querySelector('[data-testid=thread-day-label]').textContent + ' = ' +
  [...g.querySelectorAll('[data-testid=thread-item]')].map((e) => e.querySelector('[data-testid=thread-title]').textContent + ' @ ' +
    e.querySelector('[data-testid=thread-time]').textContent.replace(/[\u202f\u00a0]/g, ' ')).join('; '))`
	for _, lang := range []string{"en", "ru"} {
		p.click(tid("lang-" + lang))
		var want []string
		for _, th := range threads {
			label := th.en
			clock := th.at.Format("3:04 PM")
			if lang == "ru" {
				label, clock = th.ru, th.at.Format("15:04")
			}
			item := th.title + " @ " + clock
			if n := len(want); n > 0 && strings.HasPrefix(want[n-1], label+" = ") {
				want[n-1] += "; " + item
				continue
			}
			want = append(want, label+" = "+item)
		}
		p.waitJS("the conversations grouped by day ("+lang+")", fmt.Sprintf(`document.querySelectorAll('[data-testid=thread-day]').length === %d && document.documentElement.lang === %q`, len(want), lang), uiWait)
		if got := eval[[]string](p, sidebar); strings.Join(got, "\n") != strings.Join(want, "\n") {
			p.fail("the sidebar (%s) shows:\n%s\nwant:\n%s", lang, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		p.shot("sidebar-days-" + lang)
	}
	p.click(tid("lang-en"))
}
