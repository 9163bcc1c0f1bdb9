package words_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"yakor/words"
)

// TestTopicCases runs the case table (topic_cases_test.go) and the
// held-out sets (topic_heldout_test.go), and fails when fewer topics than
// minAccepted are ones a reader accepts, or fewer than minExact exactly
// the reader's.
//
// The held-out sets were each scored once, on first sight, before the
// rules changed on them: 74.0% accepted (60.0% exact) of the first 50,
// 56.7% (50.0%) of the second 30, 80.0% (73.3%) of the third 30; 70.9%
// (60.9%) of the 110 in all. That is the estimate for messages Topic was
// not tuned on. The gates below hold the rules to what they do on all
// 213 messages now (98.1% accepted, 90.6% exact, when they were set), with
// room for a lexicon change that costs a case or two, not for a rule that
// breaks a kind of message.
func TestTopicCases(t *testing.T) {
	const minAccepted, minExact = 0.93, 0.85
	sets := []struct {
		name  string
		cases []topicCase
	}{
		{"cases", topicCases}, {"held out", topicHeldOut}, {"held out 2", topicHeldOut2}, {"held out 3", topicHeldOut3},
	}
	var all, ru, en score
	for _, s := range sets {
		var sc score
		for _, c := range s.cases {
			ok, exact := judge(t, c)
			sc.add(ok, exact)
			all.add(ok, exact)
			if words.Lang(c.text) == "ru" {
				ru.add(ok, exact)
			} else {
				en.add(ok, exact)
			}
		}
		t.Logf("%-10s %s", s.name, sc)
	}
	t.Logf("%-10s %s", "English", en)
	t.Logf("%-10s %s", "Russian", ru)
	t.Logf("%-10s %s", "all", all)
	if all.rate(all.accepted) < minAccepted || all.rate(all.exact) < minExact {
		t.Errorf("topics of %d messages: %s; want at least %.0f%% accepted and %.0f%% exact", all.n, all, 100*minAccepted, 100*minExact)
	}
}

// judge returns whether Topic's topic for c is accepted, and whether it is
// exactly c.want; it logs the ones that are not accepted.
func judge(t *testing.T, c topicCase) (ok, exact bool) {
	got := words.Topic(c.text, c.exclude)
	exact = got == c.want
	ok = exact || slices.Contains(c.also, got)
	if !ok {
		t.Logf("Topic(%q) = %q, want %q", c.text, got, c.want)
	}
	return ok, exact
}

// score counts judged topics.
type score struct{ n, accepted, exact int }

func (s *score) add(ok, exact bool) {
	s.n++
	if ok {
		s.accepted++
	}
	if exact {
		s.exact++
	}
}

func (s score) rate(k int) float64 { return float64(k) / float64(max(s.n, 1)) }

func (s score) String() string {
	return fmt.Sprintf("%d messages: accepted %.1f%%, exact %.1f%%", s.n, 100*s.rate(s.accepted), 100*s.rate(s.exact))
}

// TestTopicLeavesOutAuthors: the names of a thread's authors never make a
// topic, in any form, and the message's subject still does.
func TestTopicLeavesOutAuthors(t *testing.T) {
	authors := []string{"Maya", "Tomas", "Каролина", "Мелани"}
	tests := []struct{ text, want string }{
		{"Maya, guess what, I finished the half marathon in Ghent!", "half marathon in Ghent"},
		{"Tomas", ""},
		{"Hi Tomas! Lisbon was amazing.", "Lisbon"},
		{"Каролина, расскажи про ВНЖ Казахстана", "ВНЖ Казахстана"},
		{"Спроси Каролину про смету", "смету"},
		{"Привет, Мелани! Как дела у Мелани с ВНЖ?", "ВНЖ"},
		{"Мелани: прайс на фасады", "прайс на фасады"},
		{"Maya's budget for the trip", "budget for the trip"},
	}
	for _, tt := range tests {
		got := words.Topic(tt.text, authors)
		if got != tt.want {
			t.Errorf("Topic(%q) = %q, want %q", tt.text, got, tt.want)
		}
		for _, a := range authors {
			if stem := string([]rune(words.Fold(a))[:4]); strings.Contains(words.Fold(got), stem) {
				t.Errorf("Topic(%q) = %q holds the author %q", tt.text, got, a)
			}
		}
	}
}

// TestTopicKeepsTheText: a topic is cut from the message, as written: its
// case, word order, hyphens and apostrophes.
func TestTopicKeepsTheText(t *testing.T) {
	for _, text := range []string{
		"Нужен прайс-лист на ЛДСП Egger",
		"Let's talk about the cat's schedule.",
		"Price list: oak board 3400, birch panel 1250",
		"Я работаю над миграцией Postgres 14 на Postgres 16",
		"Доставка в пятницу, не раньше.",
	} {
		got := words.Topic(text, nil)
		if got == "" {
			t.Errorf("Topic(%q) = \"\"", text)
			continue
		}
		for _, part := range strings.Split(got, ": ") {
			if !strings.Contains(text, part) {
				t.Errorf("Topic(%q) = %q: %q is not cut from the message", text, got, part)
			}
		}
	}
}
