package sufler

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"yakor/words"
)

// noticePrefixes open the notice line that starts every reply of Yakor's
// offline chat model (llm.Offline), in English and in Russian.
var noticePrefixes = []string{
	"No language model is configured",
	"Языковая модель не настроена",
}

// phrase is a folded phrase matched on word boundaries.
type phrase struct {
	text  string
	start bool     // only at the start of a sentence
	not   []string // ignored when the text after it starts with one of these
}

// corrections mark a next user message that corrects the answer (rule 1).
var corrections = []phrase{
	{text: "no,", start: true, not: []string{"thank"}},
	{text: "no.", start: true, not: []string{"thank"}},
	{text: "no!", start: true},
	{text: "actually,", start: true},
	{text: "wrong"},
	{text: "that's not right"},
	{text: "that is not right"},
	{text: "incorrect"},
	{text: "not correct"},
	{text: "you're mistaken"},
	{text: "you are mistaken"},
	{text: "нет,", start: true, not: []string{"спасибо"}},
	{text: "нет.", start: true, not: []string{"спасибо"}},
	{text: "нет!", start: true},
	{text: "неправильно"},
	{text: "неверно"},
	{text: "ошибка"},
	{text: "ошибаешься"},
	{text: "ошибаетесь"},
	{text: "не так"}, // also "это не так"
	{text: "на самом деле"},
}

// admissions mark an answer that has nothing to offer (rule 2).
var admissions = []phrase{
	{text: "found nothing"},
	{text: "could not find"},
	{text: "couldn't find"},
	{text: "cannot find"},
	{text: "can't find"},
	{text: "i don't know"},
	{text: "i do not know"},
	{text: "no information"},
	{text: "not sure"},
	{text: "nothing in the conversation memory matches"},
	{text: "ничего не нашел"}, // folding makes "нашёл" "нашел"
	{text: "ничего не нашла"},
	{text: "не нашлось"},
	{text: "не знаю"},
	{text: "нет информации"},
	{text: "не могу ответить"},
	{text: "нет ничего, что подходит"},
}

// Offline grades ex by the heuristics documented in the package comment,
// after dropping the offline model's notice line from the answer. It is
// deterministic and never fails; Grader is "offline".
func Offline(ex Exchange) Grade {
	g := offlineScore(ex)
	g.Grader = GraderOffline
	if g.Score <= 2 {
		g.ResearchTopic = topic(ex.Question)
	}
	return g
}

func offlineScore(ex Exchange) Grade {
	answer := stripNotice(ex.Answer)
	if answer == "" {
		return Grade{Score: 1, Reason: "The answer is empty."}
	}
	if p, ok := match(ex.NextUser, corrections); ok {
		return Grade{Score: 2, Reason: fmt.Sprintf("The user's next message corrected the answer (%q).", p)}
	}
	if p, ok := match(answer, admissions); ok && asks(ex.Question) {
		return Grade{Score: 2, Reason: fmt.Sprintf("The answer admits it has nothing to offer (%q).", p)}
	}
	nums := numbers(answer)
	context := strings.TrimSpace(ex.Context)
	known := values(context)
	if context != "" {
		asked := values(ex.Question)
		var invented []string
		seen := make(map[string]bool)
		for _, n := range nums {
			if !known[n.value] && !asked[n.value] && !seen[n.value] {
				seen[n.value] = true
				invented = append(invented, n.text)
			}
		}
		if len(invented) > 0 {
			return Grade{Score: 2, Reason: fmt.Sprintf(
				"The answer gives numbers found neither in the question nor in the context: %s.",
				strings.Join(invented[:min(3, len(invented))], ", "))}
		}
	}
	fromContext := false
	for _, n := range nums {
		if known[n.value] {
			fromContext = true
			break
		}
	}
	qk := words.Keywords(ex.Question, nil)
	shared := sharedKeywords(qk, answer)
	covers := len(qk) > 0 && 2*shared >= len(qk)
	switch {
	case fromContext && covers:
		return Grade{Score: 5, Reason: fmt.Sprintf(
			"The answer uses numbers from the context and shares %d of the question's %d keywords.", shared, len(qk))}
	case fromContext:
		return Grade{Score: 4, Reason: "The answer uses numbers from the context."}
	case covers:
		return Grade{Score: 4, Reason: fmt.Sprintf(
			"The answer shares %d of the question's %d keywords.", shared, len(qk))}
	}
	return Grade{Score: 3, Reason: "The answer is not clearly grounded in the context."}
}

// stamps match ISO dates and clock times.
var stamps = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}(?:[ T]\d{1,2}:\d{2}(?::\d{2})?)?\b|\b\d{1,2}:\d{2}(?::\d{2})?\b`)

// questionWords open a question without a question mark.
var questionWords = []string{"what", "how", "why", "when", "where", "who", "which", "is", "are", "do", "does", "did", "can", "could", "should",
	"что", "как", "почему", "зачем", "когда", "где", "кто", "какой", "какая", "какие", "сколько", "можно", "ли"}

// asks reports whether a message asks something: a question mark, or a
// question word first. "Nothing found" answers a statement without failing
// it: nothing was asked.
func asks(message string) bool {
	if strings.ContainsAny(message, "?？") {
		return true
	}
	fields := strings.Fields(strings.ToLower(message))
	if len(fields) == 0 {
		return false
	}
	first := strings.Trim(fields[0], ",.:;!")
	for _, w := range questionWords {
		if first == w {
			return true
		}
	}
	return false
}

// stripNotice trims answer and drops its first line when that line is the
// offline model's notice.
func stripNotice(answer string) string {
	answer = strings.TrimSpace(answer)
	for _, p := range noticePrefixes {
		if strings.HasPrefix(answer, p) {
			_, rest, _ := strings.Cut(answer, "\n")
			return strings.TrimSpace(rest)
		}
	}
	return answer
}

// topic is the offline research topic for question: its first five
// keywords, or its first 60 runes when it has none.
func topic(question string) string {
	kws := words.Keywords(question, nil)
	if len(kws) == 0 {
		r := []rune(oneLine(question))
		return strings.TrimSpace(string(r[:min(60, len(r))]))
	}
	words := make([]string, 0, 5)
	for _, k := range kws[:min(5, len(kws))] {
		words = append(words, k.Word)
	}
	return strings.Join(words, " ")
}

// sharedKeywords counts the keywords whose stem is the stem of a word of text.
func sharedKeywords(kws []words.Keyword, text string) int {
	stems := make(map[string]bool)
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !isWord(r) }) {
		for _, k := range words.Keywords(w, nil) {
			stems[k.Stem] = true
		}
	}
	n := 0
	for _, k := range kws {
		if stems[k.Stem] {
			n++
		}
	}
	return n
}

// normalize folds s (lower case, ё→е, typographic apostrophes to '), and
// collapses the white space of each line into single spaces.
func normalize(s string) string {
	s = strings.NewReplacer("’", "'", "‘", "'", "ʼ", "'").Replace(words.Fold(s))
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = oneLine(l)
	}
	return strings.Join(lines, "\n")
}

// match returns the first phrase found in text on word boundaries.
func match(text string, phrases []phrase) (string, bool) {
	s := normalize(text)
	for _, p := range phrases {
		for i := 0; ; {
			j := strings.Index(s[i:], p.text)
			if j < 0 {
				break
			}
			j += i
			end := j + len(p.text)
			i = end
			before, _ := utf8.DecodeLastRuneInString(s[:j])
			if j > 0 && isWord(before) {
				continue
			}
			last, _ := utf8.DecodeLastRuneInString(p.text)
			after, _ := utf8.DecodeRuneInString(s[end:])
			if end < len(s) && isWord(last) && isWord(after) {
				continue
			}
			if p.start && !sentenceStart(s[:j]) {
				continue
			}
			rest := strings.TrimLeft(s[end:], " ")
			if hasAnyPrefix(rest, p.not) {
				continue
			}
			return p.text, true
		}
	}
	return "", false
}

// sentenceStart reports whether text before a match ends a sentence.
func sentenceStart(before string) bool {
	before = strings.TrimRight(before, " \"'«„“(*-—–")
	if before == "" {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(before)
	return strings.ContainsRune(".!?…\n", r)
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// number is a number of a text with at least two digits.
type number struct {
	value string // normalised: no thousands separators, "." for decimals, no trailing decimal zeros
	text  string // as written, with a following "%"
}

// numbers returns the numbers of s with at least two digits, in order. A
// group of 1–3 digits followed by groups of exactly 3 digits, all after the
// same separator (",", "'", a space or a no-break space), is one integer
// ("3,200", "1 500"); one "." or "," with digits after it starts the decimals
// ("12.5", "12,5").
func numbers(s string) []number {
	// Dates and times are stamps (a found message's "2026-12-02 15:40"),
	// not data an answer could invent.
	s = stamps.ReplaceAllString(s, " ")
	var out []number
	for i := 0; i < len(s); {
		if !isDigit(s[i]) || i > 0 && isDigit(s[i-1]) {
			i++
			continue
		}
		start := i
		i = digits(s, i)
		intPart := s[start:i]
		if i-start <= 3 {
			var sep string
			for {
				sp, n := separator(s[i:])
				if n == 0 || sep != "" && sp != sep {
					break
				}
				if e := digits(s, i+n); e-(i+n) == 3 {
					sep = sp
					intPart += s[i+n : e]
					i = e
					continue
				}
				break
			}
		}
		var frac string
		if i+1 < len(s) && (s[i] == '.' || s[i] == ',') && isDigit(s[i+1]) {
			e := digits(s, i+1)
			frac = strings.TrimRight(s[i+1:e], "0")
			i = e
		}
		value := intPart
		if frac != "" {
			value += "." + frac
		}
		text := s[start:i]
		if i < len(s) && s[i] == '%' {
			text += "%"
		}
		if len(value)-strings.Count(value, ".") >= 2 {
			out = append(out, number{value: value, text: text})
		}
	}
	return out
}

// separator returns the thousands separator that s starts with, if any.
func separator(s string) (string, int) {
	for _, sep := range []string{",", "'", " ", "\u00a0", "\u202f", "\u2009"} {
		if strings.HasPrefix(s, sep) {
			return sep, len(sep)
		}
	}
	return "", 0
}

// digits returns the end of the run of ASCII digits that starts at i.
func digits(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// values is the set of the values of the numbers of text.
func values(text string) map[string]bool {
	set := make(map[string]bool)
	for _, n := range numbers(text) {
		set[n.value] = true
	}
	return set
}
