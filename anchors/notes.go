package anchors

import (
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"yakor/history"
	"yakor/llm"
	"yakor/words"
)

// Notes: besides its figures, a user's message may state what people
// come back for later — what happened and when, who, what was decided
// ("I went to the support group yesterday", "We chose Egger for the
// kitchen"). The offline extractor keeps such statements as an anchor's
// notes, dated when they name a day relative to when they were said, so
// the anchor's data answers "when" and "who" as well as "how much".

// Sizes of the notes of one message.
const (
	maxNotes  = 2   // statements kept
	noteRunes = 140 // each, its date included
	minNote   = 24  // shorter statements are chit-chat
)

// offlineNotes returns the statements of a user's message said at at that
// tell something (an event told in the first person, or a sentence that
// carries a date, a name or a decision: history.Carries, the thread's
// authors' names not counted) and are neither questions, greetings nor
// figures (those are its data), at most maxNotes of them (those with a
// date or a number first), each cut to noteRunes with the day it was said
// when it names a day (history.SaidOn), joined as fragments; "" for none.
func offlineNotes(text string, at time.Time, authors []string) string {
	text = llm.WithoutOfflineLines(text)
	var out, undated []string
	for _, s := range words.Sentences(text) {
		s = strings.TrimSpace(s)
		if utf8.RuneCountInString(s) < minNote || strings.HasSuffix(s, "?") || len(keyFragments(s)) > 0 || greeting(s) ||
			!isEvent(s) && !history.Carries(withoutNames(s, authors)) {
			continue
		}
		s = strings.TrimRight(strings.ReplaceAll(s, fragmentSep, ", "), ".!;")
		stamp := history.SaidOn(s, at)
		if n := noteRunes - utf8.RuneCountInString(stamp); utf8.RuneCountInString(s) > n {
			s = firstRunes(s, n-1) + ellipsis
		}
		if stamp == "" && !hasFigure(s) {
			undated = append(undated, s) // kept after the dated ones
			continue
		}
		out = append(out, s+stamp)
	}
	out = append(out, undated...)
	return strings.Join(out[:min(len(out), maxNotes)], fragmentSep)
}

// kept is what an extraction adds to its anchor's data: its figures, then
// its notes.
func (ex Extraction) kept() string {
	switch {
	case ex.Notes == "":
		return ex.Data
	case ex.Data == "":
		return ex.Notes
	}
	return ex.Data + fragmentSep + ex.Notes
}

// greeting reports whether a sentence opens as chat does ("Thanks, …",
// "Hey Maria, …", "Wow, …").
func greeting(s string) bool {
	first, _, _ := strings.Cut(words.Fold(s), " ")
	first = strings.Trim(first, ",.!")
	switch first {
	case "thanks", "thank", "hey", "hi", "hello", "wow", "aww", "haha", "lol", "yeah", "yes", "ok", "okay", "sure",
		"спасибо", "привет", "здравствуйте", "ого", "ага", "да", "ок", "хорошо", "понятно":
		return true
	}
	return false
}

// withoutNames is s without the words of the names in names (whole
// words: "Mel" leaves "Melbourne" alone).
func withoutNames(s string, names []string) string {
	drop := map[string]bool{}
	for _, n := range names {
		for _, part := range strings.Fields(n) {
			drop[part] = true
		}
	}
	kept := strings.FieldsFunc(s, unicode.IsSpace)
	kept = slices.DeleteFunc(kept, func(w string) bool {
		return drop[strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })]
	})
	return strings.Join(kept, " ")
}

// eventSubjects open a statement told in the first person.
var eventSubjects = map[string]bool{"i": true, "we": true, "my": true, "our": true, "i've": true, "we've": true, "i'm": true,
	"я": true, "мы": true, "мой": true, "моя": true, "мои": true, "наш": true, "наша": true, "наши": true}

// pastVerbs are common irregular English verbs in the past tense.
var pastVerbs = map[string]bool{"went": true, "got": true, "took": true, "made": true, "saw": true, "had": true, "did": true,
	"bought": true, "found": true, "met": true, "ran": true, "began": true, "wrote": true, "read": true, "gave": true, "won": true,
	"left": true, "came": true, "felt": true, "built": true, "sold": true, "lost": true, "chose": true, "spent": true, "taught": true,
	"drew": true, "sang": true, "swam": true, "flew": true, "drove": true, "became": true}

// isEvent reports whether s tells, in the first person, something that
// was done: a first-person word and, after it, an English verb in the
// past tense or a Russian one (-л, -ла, -ли, -ло).
func isEvent(s string) bool {
	subject := false
	for _, w := range strings.FieldsFunc(words.Fold(s), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
		if eventSubjects[w] {
			subject = true
			continue
		}
		if !subject {
			continue
		}
		if pastVerbs[w] || words.IsPastParticiple(w) {
			return true
		}
		if utf8.RuneCountInString(w) >= 4 && (strings.HasSuffix(w, "ла") || strings.HasSuffix(w, "ли") || strings.HasSuffix(w, "л") || strings.HasSuffix(w, "ло")) &&
			!strings.HasSuffix(w, "ель") && !strings.HasSuffix(w, "ол") {
			return true
		}
	}
	return false
}
