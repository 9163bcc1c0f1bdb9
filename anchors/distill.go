package anchors

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"yakor/words"
)

// MaxData is the longest an anchor's data may be, in characters (runes).
const MaxData = 1500

// fragmentSep joins the fragments of an anchor's data.
const fragmentSep = "; "

// Distill merges new data into old for an anchor and returns the result,
// at most max runes ("" when max <= 0).
//
// Both are split into fragments on "; " and on line breaks. A fragment of
// new replaces every fragment (of old, or an earlier one of new) that
// states the same thing: one with the same label, compared folded, or one
// that is the same text. The replaced fragments are removed and the new
// one is appended, so the data reads oldest first and the newest values
// come last; other new fragments are simply appended.
//
// A fragment's label is what it is about: the text before its first ':' or
// spaced dash ("ЛДСП 16 мм — 3 400 руб" is about "лдсп 16 мм"), else the
// left side of an '=' ("3 × 1250 = 3750"), else its leading words before
// the first number ("Итого 120 руб" is about "итого"). A fragment without
// one (a bare number) only replaces an identical fragment. A fragment with
// no digit (a note, a decision) replaces only another such one of its
// label, never a figure, nor a figure it.
//
// When the merged data is longer than max, fragments are dropped: the
// OLDEST notes without a figure or a date first, then the oldest of the
// rest (fitFragments); a single fragment longer than max is cut to its
// last max runes.
func Distill(old, new string, max int) string {
	type fragment struct {
		text  string
		isNew bool
	}
	var frags []fragment
	for _, f := range splitFragments(old) {
		frags = append(frags, fragment{f, false})
	}
	for _, f := range splitFragments(new) {
		frags = append(frags, fragment{f, true})
	}
	// Walk from the newest: a fragment goes when a newer fragment of new
	// states the same thing.
	labels, texts := map[string]bool{}, map[string]bool{}
	var kept []string
	for i := len(frags) - 1; i >= 0; i-- {
		f := frags[i]
		label, norm := fragmentLabel(f.text), normalize(f.text)
		if label != "" && !hasFigure(f.text) {
			label += "\x00note" // a note never replaces a figure, nor a figure a note
		}
		if !texts[norm] && !(label != "" && labels[label]) {
			kept = append(kept, f.text)
		}
		if f.isNew {
			texts[norm] = true
			if label != "" {
				labels[label] = true
			}
		}
	}
	slices.Reverse(kept)
	return fitFragments(kept, max)
}

// splitFragments splits data into its trimmed, non-empty fragments, on
// line breaks and on "; ".
func splitFragments(data string) []string {
	var out []string
	for line := range strings.Lines(data) {
		for f := range strings.SplitSeq(line, fragmentSep) {
			f = strings.TrimRightFunc(strings.TrimSpace(f), func(r rune) bool { return r == ';' })
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, f)
			}
		}
	}
	return out
}

// fitFragments joins frags with "; ", dropping fragments until the
// result is at most max runes: first the oldest (first) of those without a
// figure or a date (a note of what was said), then the oldest of the rest;
// when the newest alone is longer, it is cut to its last max runes. max <=
// 0 gives "".
func fitFragments(frags []string, max int) string {
	if max <= 0 || len(frags) == 0 {
		return ""
	}
	sepLen := utf8.RuneCountInString(fragmentSep)
	total := 0
	for i, f := range frags {
		if i > 0 {
			total += sepLen
		}
		total += utf8.RuneCountInString(f)
	}
	kept := slices.Clone(frags)
	for _, dated := range []bool{false, true} {
		for i := 0; total > max && i < len(kept)-1; {
			if hasFigure(kept[i]) != dated {
				i++
				continue
			}
			total -= utf8.RuneCountInString(kept[i]) + sepLen
			kept = slices.Delete(kept, i, i+1)
		}
	}
	out := strings.Join(kept, fragmentSep)
	if total > max {
		out = lastRunes(out, max)
	}
	return out
}

// lastRunes returns the last n runes of s (all of s when it is shorter).
func lastRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	count := 0
	for i := len(s); i > 0; {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
		count++
		if count == n {
			return s[i:]
		}
	}
	return s
}

// firstRunes returns the first n runes of s (all of s when it is shorter).
func firstRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	return s
}

// normalize folds s and collapses its white space, for comparing texts.
func normalize(s string) string {
	return strings.Join(strings.Fields(words.Fold(s)), " ")
}

// fragmentLabel returns what fragment f is about, folded (see Distill), or
// "" when it has no label. Fragments stating a total (итого, всего, total)
// share one label.
func fragmentLabel(f string) string {
	f = normalize(f)
	// A topic has one total: a new "итого"/"total" replaces the old one,
	// however each is worded.
	for _, w := range strings.FieldsFunc(f, func(r rune) bool { return !unicode.IsLetter(r) }) {
		switch w {
		case "итого", "всего", "total", "subtotal", "grand":
			if strings.IndexFunc(f, unicode.IsDigit) >= 0 {
				return "\x00total"
			}
		}
	}
	cut := -1
	if i := strings.IndexByte(f, ':'); i >= 0 {
		cut = i
	}
	for _, dash := range []string{" — ", " – ", " - "} {
		if i := strings.Index(f, dash); i >= 0 && (cut < 0 || i < cut) {
			cut = i
		}
	}
	if cut >= 0 {
		if label := trimLabel(f[:cut]); strings.IndexFunc(label, unicode.IsLetter) >= 0 {
			return label
		}
	}
	if i := strings.IndexByte(f, '='); i >= 0 {
		if label := trimLabel(f[:i]); label != "" {
			return label
		}
	}
	if i := strings.IndexFunc(f, unicode.IsDigit); i >= 0 {
		f = f[:i]
	}
	return trimLabel(f)
}

// trimLabel strips what surrounds a label: spaces, punctuation, markup.
func trimLabel(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
