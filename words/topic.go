package words

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxTopicWords is the most keywords a topic holds.
const maxTopicWords = 3

// Topic names what text is about with no model: its 1–3 most distinctive
// keywords (Keywords, without the names in exclude), in their readable
// folded form, joined by spaces in order of appearance. A word is more
// distinctive the more sentences (Sentences) mention it, when it is written
// as an acronym ("ЛДСП"), when it is in the first sentence and when it is
// long. Numbers never make a topic; units written after a number, total
// markers and request verbs ("3 400 руб", "итого", "посчитай", "convert")
// only when nothing else does (then the first of them that is not a verb).
// Topic is "" when text has no keywords ("ok, спасибо").
func Topic(text string, exclude []string) string {
	acronyms := acronymsOf(text)
	units := unitsOf(text)
	byStem := map[string]int{} // stem → index in cands
	var cands []topicCandidate
	sentences := Sentences(text)
	if len(sentences) == 0 {
		sentences = []string{text}
	}
	for n, s := range sentences {
		for _, kw := range Keywords(s, exclude) {
			if r, _ := utf8.DecodeRuneInString(kw.Word); unicode.IsDigit(r) {
				continue // a number, or a number glued to its unit
			}
			if i, ok := byStem[kw.Stem]; ok {
				cands[i].count++
				continue
			}
			byStem[kw.Stem] = len(cands)
			_, acr := acronyms[kw.Word]
			cands = append(cands, topicCandidate{
				word: kw.Word, first: len(cands), count: 1, acronym: acr, opening: n == 0,
				weak: units[kw.Word] || IsTotalMarker(kw.Word) || isRequestVerb(kw.Word),
			})
		}
	}
	strong := slices.DeleteFunc(slices.Clone(cands), func(c topicCandidate) bool { return c.weak })
	if len(strong) == 0 {
		if len(cands) == 0 {
			return ""
		}
		// Only weak words: a total marker or unit tells more than a verb.
		i := max(0, slices.IndexFunc(cands, func(c topicCandidate) bool { return !isRequestVerb(c.word) }))
		return cands[i].word
	}
	slices.SortStableFunc(strong, func(a, b topicCandidate) int {
		return cmp.Or(cmp.Compare(b.score(), a.score()), cmp.Compare(a.first, b.first))
	})
	strong = strong[:min(len(strong), maxTopicWords)]
	slices.SortFunc(strong, func(a, b topicCandidate) int { return cmp.Compare(a.first, b.first) })
	words := make([]string, len(strong))
	for i, c := range strong {
		words[i] = c.word
	}
	return strings.Join(words, " ")
}

// topicCandidate is one keyword that may make a topic.
type topicCandidate struct {
	word    string
	first   int // order of first appearance
	count   int // sentences that mention it
	acronym bool
	opening bool // it is in the first sentence, where topics are named
	weak    bool // a unit after a number, a total marker or a request verb
}

func (c topicCandidate) score() int {
	s := 2 * c.count
	if c.acronym {
		s += 2
	}
	if c.opening {
		s++
	}
	if utf8.RuneCountInString(c.word) >= 6 {
		s++
	}
	return s
}

// unitsOf returns the folded words of text used as units: the units
// (IsUnit) and calendar words ("году", "years") that follow a number,
// directly or in a chain ("3 тыс. руб/лист", "2.57м²").
func unitsOf(text string) map[string]bool {
	out := map[string]bool{}
	toks := Scan(Fold(text))
	for i := 1; i < len(toks); i++ {
		if toks[i-1].Kind != NumberToken {
			continue
		}
		for ; i < len(toks); i++ {
			t := toks[i]
			if t.Kind == WordToken && (IsUnit(t.Text) || isCalendarWord(t.Text)) {
				out[t.Text] = true
				continue
			}
			if t.Kind == SymbolToken && strings.Contains("/.²³", t.Text) {
				continue
			}
			break
		}
	}
	return out
}

// isCalendarWord reports whether a folded word counts years: no key data,
// but no topic either ("в 2019 году").
func isCalendarWord(w string) bool {
	switch w {
	case "год", "году", "года", "годах", "годы", "лет", "year", "years":
		return true
	}
	return false
}

// acronymsOf returns the folded words of text written in capitals, with at
// least two letters ("ЛДСП", "API").
func acronymsOf(text string) map[string]struct{} {
	out := map[string]struct{}{}
	for w := range strings.FieldsFuncSeq(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		letters, upper := 0, 0
		for _, r := range w {
			if unicode.IsLetter(r) {
				letters++
				if unicode.IsUpper(r) {
					upper++
				}
			}
		}
		if letters >= 2 && upper == letters {
			out[Fold(w)] = struct{}{}
		}
	}
	return out
}

// isRequestVerb reports whether a folded word asks for something rather
// than names a topic ("посчитай", "convert").
func isRequestVerb(w string) bool {
	switch w {
	case "посчитай", "посчитайте", "посчитать", "рассчитай", "рассчитайте", "рассчитать",
		"переведи", "переведите", "покажи", "покажите", "сделай", "сделайте",
		"помоги", "помогите", "дай", "дайте", "напиши", "напишите", "объясни", "объясните",
		"найди", "найдите", "проверь", "проверьте", "сравни", "сравните",
		"calculate", "compute", "convert", "show", "make", "help", "give", "write",
		"explain", "find", "check", "compare", "need", "let":
		return true
	}
	return false
}
