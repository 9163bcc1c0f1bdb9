package words

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file cuts noun phrases out of a sentence, for Topic: it splits the
// sentence into words, numbers and punctuation, tells each word's part in a
// phrase (content, linker, determiner, or a break: punctuation, stop words,
// verbs, names, chat), and takes the runs of content words joined by
// linkers.

// Limits of a phrase: at most maxHead content words in a row, at most
// maxChunks linked parts after them, at most maxContent content words in
// all. A second linked part only joins a pair: "TCP and UDP", "from
// Postgres 14 to Postgres 16" (pairedLinker).
const (
	maxHead    = 3
	maxChunks  = 2
	maxContent = 4
)

// ptKind is the kind of a phrase token.
type ptKind uint8

const (
	ptWord ptKind = iota
	ptNumber
	ptPunct
)

// pClass is a token's part in a noun phrase.
type pClass uint8

const (
	pBreak   pClass = iota // ends a phrase: punctuation, stop words, verbs, names, chat
	pLinker                // joins two parts of a phrase ("на", "of")
	pDet                   // may follow a linker ("the", "нашего")
	pNumber                // a number that is not part of a name
	pContent               // a word of a phrase, or a number that names a version ("Postgres 16")
)

// ptoken is one word, number or punctuation mark of a sentence.
type ptoken struct {
	text       string // as written
	fold       string // folded; for a contraction the part before its apostrophe ("crew's" → "crew")
	kind       ptKind
	start, end int // byte offsets in the sentence
	class      pClass
	version    bool // a number in a phrase; it does not count as a content word
	weak       bool // a unit after a number, a calendar word, a total marker or a generic noun
	verb       bool
}

// phrase is a cut of a sentence: tokens [from, to).
type phrase struct {
	from, to int
	content  int  // content words, versions left out
	weak     bool // every content word is weak
}

// text returns the phrase as written in sentence s.
func (p phrase) text(s string, toks []ptoken) string {
	return s[toks[p.from].start:toks[p.to-1].end]
}

// scanPhrase splits s into words (letters and digits, with inner hyphens
// and apostrophes: "прайс-лист", "crew's"), numbers (with decimals and the
// letters glued to them: "2.57м²") and single punctuation marks.
func scanPhrase(s string) []ptoken {
	var out []ptoken
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsSpace(r):
			i += size
			continue
		case unicode.IsLetter(r), unicode.IsDigit(r):
			j := wordEnd(s, i+size, unicode.IsDigit(r))
			t := ptoken{text: s[i:j], start: i, end: j, kind: ptWord}
			if unicode.IsDigit(r) {
				t.kind = ptNumber
			}
			t.fold = contractionBase(Fold(t.text))
			out = append(out, t)
			i = j
		default:
			out = append(out, ptoken{text: s[i : i+size], fold: s[i : i+size], start: i, end: i + size, kind: ptPunct})
			i += size
		}
	}
	return out
}

// wordEnd returns where the word or number that runs on at i ends.
func wordEnd(s string, i int, number bool) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		next, _ := utf8.DecodeRuneInString(s[i+size:])
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '²' || r == '³':
		case number && (r == '.' || r == ',') && unicode.IsDigit(next):
		case !number && (r == '-' || r == '\'' || r == '’') && (unicode.IsLetter(next) || unicode.IsDigit(next)):
		default:
			return i
		}
		i += size
	}
	return i
}

// contractionBase returns a folded word without the ending of an English
// contraction ("that's" → "that", "don't" → "don"); other words as they are.
func contractionBase(w string) string {
	i := strings.IndexAny(w, "'’")
	if i < 0 {
		return w
	}
	_, size := utf8.DecodeRuneInString(w[i:])
	switch w[i+size:] {
	case "s", "t", "re", "ve", "ll", "d", "m":
		return w[:i]
	}
	return w
}

// classify sets each token's part in a phrase. names are the stems of the
// names left out (the thread's authors); ru tells a Russian sentence.
func classify(toks []ptoken, names []string, ru bool) {
	for i := range toks {
		toks[i].class = baseClass(&toks[i], names)
		if i > 0 && inSet(chatPairs[toks[i-1].fold], toks[i].fold) {
			toks[i-1].class, toks[i].class = pBreak, pBreak
		}
	}
	aux := false
	for i := range toks {
		t := &toks[i]
		aux = aux || t.kind == ptWord && inSet(doAux, t.fold)
		switch t.class {
		case pContent:
			if verbByContext(toks, i, aux) {
				t.class, t.verb = pBreak, true
				continue
			}
			t.weak = IsTotalMarker(t.fold) || inSet(genericWords, t.fold) || afterNumber(toks, i) && (IsUnit(t.fold) || isCalendarWord(t.fold))
		case pNumber:
			if isVersion(toks, i, ru) {
				t.class, t.version = pContent, true
			}
		}
	}
	// A Russian word in -но, -ро, -ко, -хо, -шо right before a verb is an
	// adverb ("ноутбук сильно греется").
	for i := 0; i+1 < len(toks); i++ {
		if t := &toks[i]; t.class == pContent && isCyrillic(t.fold) && hasAnySuffix(t.fold, "но", "ро", "ко", "хо", "шо") &&
			!inSet(nounsInO, t.fold) && toks[i+1].verb {
			t.class = pBreak
		}
	}
}

// baseClass is a token's part in a phrase from the word alone.
func baseClass(t *ptoken, names []string) pClass {
	switch t.kind {
	case ptPunct:
		return pBreak
	case ptNumber:
		return pNumber
	}
	w := t.fold
	switch {
	case inSet(linkers, w):
		return pLinker
	case inSet(determiners, w):
		return pDet
	case utf8.RuneCountInString(w) < 2 && !isUpper(t.text):
		return pBreak
	case isName(w, names), inSet(stopWords(), w), inSet(chatWords, w), inSet(timeWords, w), hyphenedStop(w):
		return pBreak
	case inSet(requestVerbs, w), inSet(pastVerbs, w), isCyrillic(w) && isRussianVerb(w):
		t.verb = true
		return pBreak
	}
	return pContent
}

// verbByContext reports whether the content word toks[i] is a verb by the
// words around it (a word with a capital within the sentence never is):
// after a subject pronoun, a modal, "не", an object pronoun or an
// infinitive's "to"; before an object pronoun or an English determiner; an
// -ing after a form of "be"; an -ed after a noun; an -s verb before a
// figure or a phrase; the last word of a do-question. English adverbs
// ("honestly", "fast") and the word after "how" are no phrase either, and
// count as verbs here. aux tells that a do-question's "do" came before.
func verbByContext(toks []ptoken, i int, aux bool) bool {
	w := toks[i].fold
	p1, p2, n1 := word(toks, i-1), word(toks, i-2), tokenAt(toks, i+1)
	afterContent := i > 0 && toks[i-1].class == pContent
	if r, _ := utf8.DecodeRuneInString(toks[i].text); i > 0 && unicode.IsUpper(r) {
		return false // a name within a sentence ("to Riga")
	}
	if isCyrillic(w) {
		return russianVerbByContext(toks, i, p1, p2)
	}
	switch {
	case (strings.HasSuffix(w, "ly") && !inSet(lyWords, w) || inSet(adverbs, w)) && n1.class != pContent:
		return true // an adverb ("Honestly, …"); not a verb, but no phrase either
	case p1 == "how":
		return true // "how long", "how much"
	case inSet(subjects, p1), inSet(modals, p1), inSet(objects, p1):
		return true
	case inSet(englishAdverbs, p1) && inSet(subjects, p2):
		return true
	case p1 == "to" && (i < 2 || toks[i-2].class != pContent):
		return true
	case inSet(objects, n1.fold) || n1.fold == "you" || n1.kind == ptWord && englishDeterminer(n1.fold):
		return true
	case strings.HasSuffix(w, "ing") && inSet(beForms, p1):
		return true
	case IsPastParticiple(w):
		return afterContent || inSet(subjects, p1) || p1 == "and" || p1 == "then" || i == 0 && n1.class != pContent
	case inSet(sVerbs, w):
		return n1.kind == ptNumber || n1.kind == ptPunct && isCurrencySign(n1.text) || n1.class == pLinker || n1.class == pDet ||
			n1.class == pContent && (i == 0 || toks[i-1].class != pDet) || n1.kind == ptWord && n1.class == pBreak
	case aux && inSet(doVerbs, w):
		return n1.kind != ptWord
	}
	return false
}

// russianVerbByContext is verbByContext for the Russian word toks[i],
// after the words p1 and p2. Besides the rules of verbByContext: a word in
// -ём or -ёт is a verb ("берём", "придёт"); so is a past tense in -ал,
// -ял, -ел after a content word ("Курьер опоздал"), a present tense in
// -ет, -ит, -ат, -ят, -ут after the sentence's subject ("Зарплата
// приходит"), and a past tense in -ла, -ло, -ли after a linked part
// ("Цена на металлочерепицу выросла").
func russianVerbByContext(toks []ptoken, i int, p1, p2 string) bool {
	t, n1 := toks[i], tokenAt(toks, i+1)
	w, lower := t.fold, strings.ToLower(t.text)
	long := utf8.RuneCountInString(w) >= 5
	afterContent := i > 0 && toks[i-1].class == pContent
	switch {
	case inSet(subjects, p1), p1 == "не":
		return true
	case hasAnySuffix(lower, "ём", "ёт") && !inSet(nounsInYo, lower) && lower == t.text:
		return true
	case afterContent && long && hasAnySuffix(w, "ал", "ял", "ел"):
		return true
	case afterContent && long && hasAnySuffix(w, "ет", "ит", "ат", "ят", "ут") && firstContent(toks) == i-1 && !isRussianAdjective(toks[i-1].fold):
		return true
	case afterContent && long && hasAnySuffix(w, "ла", "ло", "ли") && i > 1 && toks[i-2].class == pLinker:
		return true
	case inSet(russianAdverbs, p1) && inSet(subjects, p2):
		return true
	case inSet(modals, p1):
		return hasAnySuffix(w, "ть", "ти", "чь", "ться", "тись")
	case inSet(questionWords, p1):
		return hasAnySuffix(w, "т", "ть", "л", "ла", "ло", "ли", "ся", "сь", "ем", "им", "ешь", "ишь", "ют", "ят", "ут")
	}
	return inSet(objects, n1.fold) && isCyrillic(n1.fold)
}

// firstContent returns the index of the first content word of toks, -1
// when there is none.
func firstContent(toks []ptoken) int {
	for i, t := range toks {
		if t.class == pContent {
			return i
		}
	}
	return -1
}

// russianAdverbs may stand between a subject and its verb ("мы уже
// заказали").
var russianAdverbs = wordSet(`уже тоже еще опять сейчас давно часто всегда никогда очень так просто вообще ведь же`)

// englishAdverbs may stand between a subject and its verb ("I just
// finished").
var englishAdverbs = wordSet(`also just really already never still always often usually finally actually`)

// englishDeterminer reports whether w opens an English noun phrase, so a
// word before it is a verb ("ship the release", "send me").
func englishDeterminer(w string) bool {
	switch w {
	case "the", "a", "an", "my", "your", "our", "his", "their", "this", "these", "those":
		return true
	}
	return false
}

// isVersion reports whether the number toks[i] belongs to the name before
// it ("Postgres 16", "iPhone 15"): that name is a content word written with
// a capital (not the sentence's first word) or in Latin letters in a
// Russian sentence, and no unit or currency follows the number.
func isVersion(toks []ptoken, i int, ru bool) bool {
	if i == 0 || toks[i-1].class != pContent || toks[i-1].kind != ptWord || toks[i-1].weak {
		return false
	}
	prev, next := toks[i-1], tokenAt(toks, i+1)
	if next.kind == ptWord && IsUnit(next.fold) || next.kind == ptPunct && (isCurrencySign(next.text) || next.text == "%") {
		return false
	}
	if strings.ContainsFunc(toks[i].text, unicode.IsLetter) {
		return false // a number glued to its unit
	}
	return ru && !isCyrillic(prev.fold) || i > 1 && strings.ContainsFunc(prev.text, unicode.IsUpper)
}

// afterNumber reports whether toks[i] follows a number, directly or after
// a unit chain ("3 тыс. руб", "3 400 руб/лист").
func afterNumber(toks []ptoken, i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch t := toks[j]; {
		case t.kind == ptNumber:
			return true
		case t.kind == ptPunct && strings.Contains("/.²³", t.text):
		case t.kind == ptWord && (IsUnit(t.fold) || isCalendarWord(t.fold)):
		default:
			return false
		}
	}
	return false
}

// cut returns the phrases of classified toks, in order: each starts at a
// content word, takes up to maxHead content words in a row, then up to
// maxChunks parts joined by a linker (and determiners after it), within
// maxContent content words.
func cut(toks []ptoken) []phrase {
	var out []phrase
	for i := 0; i < len(toks); {
		if toks[i].class != pContent || toks[i].version {
			i++
			continue
		}
		p := phrase{from: i}
		j, weak := run(toks, i, maxHead, &p.content)
		p.weak = weak
		if j < len(toks) && toks[j].class == pContent {
			// A longer run of content words is a clause, not a phrase:
			// its start is the phrase.
			p.to = j
			out = append(out, p)
			for j < len(toks) && toks[j].class == pContent {
				j++
			}
			i = j
			continue
		}
		p.to = j
		first := ""
		for c := range maxChunks {
			k := j
			if k >= len(toks) || toks[k].class != pLinker || c > 0 && !pairedLinker(first, toks[k].fold) {
				break
			}
			if c == 0 {
				first = toks[k].fold
			}
			for k++; k < len(toks) && toks[k].class == pDet; k++ {
			}
			n := 0
			m, w := run(toks, k, maxHead, &n)
			if n == 0 || p.content+n > maxContent {
				break
			}
			p.content += n
			p.weak = p.weak && w
			p.to, j = m, m
		}
		out = append(out, p)
		i = p.to
	}
	return out
}

// pairedLinker reports whether a second linked part, opened by second,
// completes the first one, opened by first: a coordination ("and", "и")
// or a span ("from … to").
func pairedLinker(first, second string) bool {
	return second == "and" || second == "и" || first == "from" && second == "to"
}

// run takes the content words from toks[i], at most limit of them
// (versions go free), adds their count to *n and returns where they end
// and whether all were weak.
func run(toks []ptoken, i, limit int, n *int) (int, bool) {
	weak, count := true, 0
	for ; i < len(toks) && toks[i].class == pContent; i++ {
		if toks[i].version {
			continue
		}
		if count == limit {
			break
		}
		count++
		weak = weak && toks[i].weak
	}
	*n += count
	return i, weak
}

// word returns the folded word toks[i], "" for anything else.
func word(toks []ptoken, i int) string {
	if i < 0 || i >= len(toks) || toks[i].kind != ptWord {
		return ""
	}
	return toks[i].fold
}

// tokenAt returns toks[i], or the zero token (a word "") past either end.
func tokenAt(toks []ptoken, i int) ptoken {
	if i < 0 || i >= len(toks) {
		return ptoken{kind: ptPunct}
	}
	return toks[i]
}
