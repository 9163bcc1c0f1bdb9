package anchors

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"yakor/words"
)

// Sources of an Extraction.
const (
	SourceOffline = "offline" // OfflineExtract
	SourceHelper  = "helper"  // the helper model
)

// maxTopicWords is the most keywords an offline topic holds.
const maxTopicWords = 3

// Extraction is what the topic extractor read in one message.
type Extraction struct {
	Topic       string // a short phrase in the conversation's language, e.g. "прайс ЛДСП" / "price list"; "" when the message has none
	Data        string // key data the message carries (numbers with units/currencies, totals, A × B = C results, decisions), "" if none
	DataChanged bool   // the message changes key data of its topic (a new or different value)
	Source      string // SourceOffline or SourceHelper
}

// OfflineExtract reads a message with no model.
//
// Topic is the message's 1–3 most distinctive keywords (words.Keywords,
// without the names in exclude), in their readable folded form, joined by
// spaces in order of appearance. A word is more distinctive the more
// sentences mention it, when it is written as an acronym ("ЛДСП"), when it
// is in the first sentence and when it is long. Numbers never make a
// topic; units written after a number, total markers and request verbs
// ("3 400 руб", "итого", "посчитай", "convert") only when nothing else
// does (then the first of them that is not a verb). Topic is "" when the
// message has no keywords ("ok, спасибо").
//
// Data holds each line or sentence of the message that carries key data: a
// number with a unit or currency ("3 400 руб/лист", "16 мм", "$120", "15%"),
// a total marker with a number ("Итого: 285 600"), or a calculation
// ("3 × 1250 = 3750", also with x, *, ·, + or /). The fragments are trimmed,
// repeated ones kept once (the last), and joined by "; ". When that is
// longer than MaxData, the OLDEST fragments are dropped first, so the
// newest values win. DataChanged is Data != "".
func OfflineExtract(text string, exclude []string) Extraction {
	sentences := splitSentences(text)
	var frags []string
	seen := map[string]bool{}
	for _, s := range slices.Backward(sentences) { // the last of repeated ones stays
		if norm := normalize(s); !seen[norm] && hasKeyData(s) {
			seen[norm] = true
			frags = append(frags, s)
		}
	}
	slices.Reverse(frags)
	data := fitFragments(frags, MaxData)
	return Extraction{
		Topic:       offlineTopic(text, sentences, exclude),
		Data:        data,
		DataChanged: data != "",
		Source:      SourceOffline,
	}
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

// offlineTopic picks the topic words of text (see OfflineExtract).
func offlineTopic(text string, sentences, exclude []string) string {
	acronyms := acronymsOf(text)
	units := unitsOf(text)
	byStem := map[string]int{} // stem → index in cands
	var cands []topicCandidate
	if len(sentences) == 0 {
		sentences = []string{text}
	}
	for n, s := range sentences {
		for _, kw := range words.Keywords(s, exclude) {
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
				weak: units[kw.Word] || isTotalMarker(kw.Word) || isRequestVerb(kw.Word),
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

// unitsOf returns the folded words of text used as units: the units
// (isUnit) and calendar words ("году", "years") that follow a number,
// directly or in a chain ("3 тыс. руб/лист", "2.57м²").
func unitsOf(text string) map[string]bool {
	out := map[string]bool{}
	toks := scanTokens(words.Fold(text))
	for i := 1; i < len(toks); i++ {
		if toks[i-1].kind != tokNum {
			continue
		}
		for ; i < len(toks); i++ {
			t := toks[i]
			if t.kind == tokWord && (isUnit(t.text) || isCalendarWord(t.text)) {
				out[t.text] = true
				continue
			}
			if t.kind == tokSym && strings.Contains("/.²³", t.text) {
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
			out[words.Fold(w)] = struct{}{}
		}
	}
	return out
}

// splitSentences splits text into trimmed, non-empty lines and sentences.
// A sentence ends at '!', '?', ';', '|' or '…', and at a '.' that is
// followed by white space and then not a lower-case letter (so "3 тыс. руб"
// and "2.57" stay whole). Leading list bullets and markdown emphasis are
// removed.
func splitSentences(text string) []string {
	var out []string
	add := func(s string) {
		s = strings.NewReplacer("**", "", "__", "", "`", "").Replace(s)
		s = strings.TrimLeft(strings.TrimSpace(s), "-*•·–—> \t")
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	for line := range strings.Lines(text) {
		start := 0
		for i, r := range line {
			end := false
			switch r {
			case '!', '?', ';', '|', '…':
				end = true
			case '.':
				rest := line[i+1:]
				trimmed := strings.TrimLeftFunc(rest, unicode.IsSpace)
				next, _ := utf8.DecodeRuneInString(trimmed)
				end = len(trimmed) < len(rest) && !unicode.IsLower(next) || trimmed == ""
			}
			if end {
				stop := i + utf8.RuneLen(r)
				if r == ';' || r == '|' {
					stop = i // a separator, not part of either side
				}
				add(line[start:stop])
				start = i + utf8.RuneLen(r)
			}
		}
		add(line[start:])
	}
	return out
}

// tokenKind is the kind of one token of a fragment.
type tokenKind int

const (
	tokNum  tokenKind = iota // a number: "3", "2.57", "3 400", "1,5"
	tokWord                  // a run of letters
	tokSym                   // any other rune that is not white space
)

type token struct {
	kind tokenKind
	text string
}

// scanTokens splits folded text into numbers, words and symbols. A number
// may hold a decimal point or comma and thousands groups split by a space
// ("285 600").
func scanTokens(s string) []token {
	var out []token
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsSpace(r):
			i += size
		case unicode.IsDigit(r):
			j := i + size
			for j < len(s) {
				r2, n2 := utf8.DecodeRuneInString(s[j:])
				switch {
				case unicode.IsDigit(r2):
					j += n2
					continue
				case (r2 == '.' || r2 == ',') && digitsAt(s[j+n2:]) > 0:
					j += n2
					continue
				case isGroupSpace(r2) && digitsAt(s[j+n2:]) == 3:
					j += n2
					continue
				}
				break
			}
			out = append(out, token{tokNum, s[i:j]})
			i = j
		case unicode.IsLetter(r):
			j := i + size
			for j < len(s) {
				r2, n2 := utf8.DecodeRuneInString(s[j:])
				if !unicode.IsLetter(r2) {
					break
				}
				j += n2
			}
			out = append(out, token{tokWord, s[i:j]})
			i = j
		default:
			out = append(out, token{tokSym, s[i : i+size]})
			i += size
		}
	}
	return out
}

// digitsAt returns how many digits s starts with.
func digitsAt(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.IsDigit(r) {
			break
		}
		n++
	}
	return n
}

// isGroupSpace reports whether r may split the thousands of a number.
func isGroupSpace(r rune) bool {
	return r == ' ' || r == '\u00a0' || r == '\u202f' || r == '\u2009'
}

// hasKeyData reports whether a fragment carries key data (see
// OfflineExtract).
func hasKeyData(fragment string) bool {
	toks := scanTokens(words.Fold(fragment))
	for i, t := range toks {
		var next token
		if i+1 < len(toks) {
			next = toks[i+1]
		}
		switch t.kind {
		case tokNum:
			if next.kind == tokWord && isUnit(next.text) || next.kind == tokSym && isUnitSymbol(next.text) {
				return true
			}
		case tokSym:
			if isUnitSymbol(t.text) && next.kind == tokNum {
				return true
			}
		case tokWord:
			if isTotalMarker(t.text) && slices.ContainsFunc(toks[i+1:], func(t token) bool { return t.kind == tokNum }) {
				return true
			}
		}
	}
	return hasCalculation(toks)
}

// hasCalculation reports whether toks hold "A op B = C": a number, an
// operator, a number, '=' and a number, in that order (units may come
// between them).
func hasCalculation(toks []token) bool {
	step := 0 // 0: want A, 1: want op, 2: want B, 3: want '=', 4: want C
	for _, t := range toks {
		switch {
		case t.kind == tokNum && (step == 0 || step == 2 || step == 4):
			if step == 4 {
				return true
			}
			step++
		case step == 1 && isOperator(t):
			step = 2
		case step == 3 && t.kind == tokSym && t.text == "=":
			step = 4
		case t.kind == tokSym && t.text == "=" && step < 3:
			step = 0 // "x = 5" is not a result
		}
	}
	return false
}

// isOperator reports whether t is an arithmetic operator of a result line.
func isOperator(t token) bool {
	switch t.text {
	case "×", "*", "·", "+", "/", "÷":
		return t.kind == tokSym
	case "x", "х": // Latin and Cyrillic
		return t.kind == tokWord
	}
	return false
}

// isUnitSymbol reports whether a symbol is a currency or a percent sign.
func isUnitSymbol(s string) bool {
	switch s {
	case "$", "€", "£", "¥", "₽", "₸", "₴", "₹", "%", "‰", "°":
		return true
	}
	return false
}

// isUnit reports whether a folded word is a unit, a currency or a
// magnitude ("руб", "рублей", "шт", "мм", "листов", "usd", "kg", "тыс").
func isUnit(w string) bool {
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

// isTotalMarker reports whether a folded word announces a total.
func isTotalMarker(w string) bool {
	switch w {
	case "итого", "итог", "всего", "total", "totals", "subtotal", "sum":
		return true
	}
	return strings.HasPrefix(w, "сумм")
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
