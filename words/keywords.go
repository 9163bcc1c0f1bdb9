package words

import (
	_ "embed"
	"iter"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/russian"
)

// maxKeywords is the most keywords Keywords returns for one text.
const maxKeywords = 12

// minStemRunes is the shortest stem worth searching for as a word's start;
// a shorter stem falls back to the whole word.
const minStemRunes = 3

//go:embed stopwords_en.txt
var stopwordsEN string

//go:embed stopwords_ru.txt
var stopwordsRU string

// stopWords returns the folded English and Russian stop words, parsed once
// from the embedded lists.
var stopWords = sync.OnceValue(func() map[string]struct{} {
	set := make(map[string]struct{}, 600)
	for _, list := range []string{stopwordsEN, stopwordsRU} {
		for line := range strings.Lines(list) {
			if i := strings.IndexByte(line, '#'); i >= 0 {
				line = line[:i]
			}
			if w := Fold(strings.TrimSpace(line)); w != "" {
				set[w] = struct{}{}
			}
		}
	}
	return set
})

// Keyword is one distinctive word of a query.
type Keyword struct {
	Word string // the word folded (lower-cased, ё→е), punctuation stripped
	Stem string // its Snowball stem (russian for Cyrillic, english for Latin), cut to a prefix of Word; Word itself for numbers, mixed scripts, or when the stem would be shorter than 3 runes
}

// Keywords returns the distinctive words of text, in first-appearance order,
// deduplicated by Stem, at most 12 (the first ones).
//
// Words are split on anything that is not a letter or digit, so the result
// holds only letters and digits (never %, _, ' or \). A word is kept when it
// has at least 3 runes, or at least 2 when it contains a digit ("85", "4o").
// English and Russian stop words are removed, comparing folded words, and so
// are the names in exclude (speakers' names are not evidence): a word goes
// when it equals, after folding, a word of a name, or when its stem equals
// that word's stem ("Каролину" for the name "Каролина").
//
// Stem is the Snowball stem cut to the part it shares with the word, so it
// is always a prefix of the word and finds the word's forms as the start of
// a word of folded text (history search's prefix queries): english turns "happy" into "happi" and "hoping" into "hope",
// which Keywords reports as "happ" and "hop". A trailing English "i" (the
// stemmer's stand-in for "y") is dropped too, so "study" and "studies" share
// the stem "stud".
func Keywords(text string, exclude []string) []Keyword {
	stop := stopWords()

	names := nameStems(exclude)

	var out []Keyword
	for w := range tokens(Fold(text)) {
		if len(out) == maxKeywords {
			break
		}
		if _, ok := stop[w]; ok ||
			slices.ContainsFunc(out, func(k Keyword) bool { return k.Word == w }) {
			continue
		}
		st := patternStem(w)
		if slices.Contains(names, st) {
			continue
		}
		if !slices.ContainsFunc(out, func(k Keyword) bool { return k.Stem == st }) {
			out = append(out, Keyword{Word: w, Stem: st})
		}
	}
	return out
}

// tokens yields the candidate words of folded text: maximal runs of letters
// and digits with at least 3 runes, or at least 2 when they hold a digit.
func tokens(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		start, n, digit := -1, 0, false
		flush := func(end int) bool {
			w := s[start:end]
			start = -1
			if n >= minStemRunes || (digit && n >= 2) {
				return yield(w)
			}
			return true
		}
		for i, r := range s {
			if isWordRune(r) {
				if start < 0 {
					start, n, digit = i, 0, false
				}
				n++
				if unicode.IsDigit(r) {
					digit = true
				}
				continue
			}
			if start >= 0 && !flush(i) {
				return
			}
		}
		if start >= 0 {
			flush(len(s))
		}
	}
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r|0x20 && r|0x20 <= 'z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// patternStem returns the stem of a folded word, as documented on Keyword
// and Keywords.
func patternStem(w string) string {
	var cyr, lat, other int
	for _, r := range w {
		switch {
		case r < utf8.RuneSelf && 'a' <= r && r <= 'z':
			lat++
		case r < utf8.RuneSelf:
			other++ // a digit
		case unicode.Is(unicode.Cyrillic, r):
			cyr++
		case unicode.Is(unicode.Latin, r):
			lat++
		default:
			other++
		}
	}
	var st string
	switch {
	case other > 0 || cyr > 0 && lat > 0:
		return w
	case cyr > 0:
		st = russian.Stem(w, true)
	default:
		st = english.Stem(w, true)
		st = strings.TrimSuffix(st, "i")
	}
	st = sharedPrefix(w, st)
	if utf8.RuneCountInString(st) < minStemRunes {
		return w
	}
	return st
}

// sharedPrefix returns the longest prefix of a that is also a prefix of b,
// ending on a rune boundary.
func sharedPrefix(a, b string) string {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	for i > 0 && i < len(a) && !utf8.RuneStart(a[i]) {
		i--
	}
	return a[:i]
}

// Named returns the names among names that text names: those with a word
// whose stem is a word of text's (as Keywords compares them, so "Anna's"
// and «Анны» name Anna).
func Named(text string, names []string) []string {
	stems := map[string]bool{}
	for w := range tokens(Fold(text)) {
		stems[patternStem(w)] = true
	}
	var out []string
	for _, name := range names {
		for w := range tokens(Fold(name)) {
			if stems[patternStem(w)] {
				out = append(out, name)
				break
			}
		}
	}
	return out
}
