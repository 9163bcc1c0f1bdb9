package llm

import (
	"slices"
	"strings"
	"unicode"

	"yakor/words"
)

// figureWords ask for a figure rather than name a subject: a passage that
// holds only them does not answer, and one that holds a digit answers them
// better. Their stems are matched (words.Keywords), and the words
// themselves, since some of them are stop words ("сколько", "much").
var figureWords = strings.Fields("cost costs price prices priced much many total sum amount rate fee charge " +
	"стоит стоят стоимость цена цены цену сколько сумма итог тариф ставка")

// askWords start a message that asks without a question mark.
var askWords = []string{"remind", "recall", "tell", "напомни", "напомните", "подскажи", "подскажите", "скажи", "скажите"}

// ask is the question the offline model answers: its keywords, the subject
// ones among them, whether it asks for a figure and whether it asks at all.
type ask struct {
	kws      []words.Keyword
	subject  []words.Keyword
	figure   bool
	question bool
}

var figureStems = func() map[string]bool {
	out := map[string]bool{}
	for _, w := range figureWords {
		for _, k := range words.Keywords(w, nil) {
			out[k.Stem] = true
		}
	}
	return out
}()

func newAsk(q string) ask {
	a := ask{kws: words.Keywords(q, nil)}
	for _, k := range a.kws {
		if figureStems[k.Stem] {
			a.figure = true
		} else {
			a.subject = append(a.subject, k)
		}
	}
	if len(a.subject) == 0 {
		a.subject = a.kws
	}
	a.question = strings.ContainsAny(q, "?？")
	f := words.Fields(q)
	if len(f) > 0 {
		for _, w := range askWords {
			a.question = a.question || f[0] == w
		}
	}
	for _, w := range f {
		a.figure = a.figure || slices.Contains(figureWords, w)
	}
	return a
}

// score is how well fields answer the question: two points a subject word
// they hold (at the start of one of their words), one a figure word, and
// one for a digit when the question asks for a figure; and how many
// subject words they hold.
func (a ask) score(fields []string) (score, subject int) {
	for _, k := range a.subject {
		if holds(fields, k.Stem) {
			score += 2
			subject++
		}
	}
	for _, k := range a.kws {
		if figureStems[k.Stem] && holds(fields, k.Stem) {
			score++
		}
	}
	if a.figure && subject > 0 && hasDigit(fields) {
		score++
	}
	return score, subject
}

// best is the passage that best answers the question (ties: the newest),
// nil when none holds a subject word; full tells whether it holds at
// least half of them.
func (a ask) best(ps []passage) (best *passage, full bool) {
	bestScore, bestSubject := 0, 0
	for i := range ps {
		s, n := a.score(ps[i].fields)
		if n > 0 && s >= bestScore {
			best, bestScore, bestSubject = &ps[i], s, n
		}
	}
	return best, best != nil && 2*bestSubject >= len(a.subject)
}

// bestHit is the hit line that best answers the question (ties, and no
// line holding a keyword: the newest); false when there is none.
func (a ask) bestHit(lines []string) (string, bool) {
	best, bestScore := "", -1
	for _, l := range lines {
		if s, _ := a.score(words.Fields(l)); s >= bestScore {
			best, bestScore = l, s
		}
	}
	return best, bestScore >= 0
}

// holds reports whether one of fields starts with stem.
func holds(fields []string, stem string) bool {
	for _, f := range fields {
		if strings.HasPrefix(f, stem) {
			return true
		}
	}
	return false
}

func hasDigit(fields []string) bool {
	for _, f := range fields {
		if strings.IndexFunc(f, unicode.IsDigit) >= 0 {
			return true
		}
	}
	return false
}
