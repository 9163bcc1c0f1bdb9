// Package fence keeps stored text inside the delimiters Yakor writes around
// it in a prompt. Messages, summaries, facts, anchors, recalled experiences
// and research notes come from users, models and web pages; placed inside
// a block such as "<memory-context> … </memory-context>" or
// "[FOUND IN HISTORY: …] … [END OF FOUND IN HISTORY]", such text must never
// be able to close that block or open another, or it would speak to the
// model with the block's authority.
//
// The rule is one pass, and provably a fixpoint: a '<' that begins a tag
// naming one of Yakor's tags (any case, any spaces, slashes or invisible
// characters in between) becomes '‹'; a '[' that begins one of Yakor's
// bracket markers becomes '⁅' (also when the text ends partway into one,
// since what Yakor writes next could complete it). Neither replacement is a character any
// delimiter starts with, and nothing else changes, so the output holds no
// delimiter whatever the input, and escaping it again changes nothing.
// Inline also turns ']' into '⁆' and line breaks into spaces, for values
// written inside a bracketed header.
package fence

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tags are the names of the XML-like tags Yakor writes around stored text.
var Tags = []string{"memory-context"}

// Markers are the words that open the bracketed headers Yakor writes
// around or before stored text, in every language it writes them in.
var Markers = []string{
	"FOUND IN HISTORY", "END OF FOUND IN HISTORY", "НАЙДЕНО В ИСТОРИИ", "КОНЕЦ НАЙДЕННОГО",
	"SUMMARY", "СВОДКА",
	"FACTS", "ФАКТЫ",
	"DIALOGUE TOPICS", "DATA", "ТЕМЫ ДИАЛОГА", "ДАННЫЕ",
}

// Escapes of the characters that open (and, inline, close) a delimiter.
const (
	TagOpen     = '‹' // stands for a '<' that would open one of Tags
	MarkerOpen  = '⁅' // stands for a '[' that would open one of Markers
	MarkerClose = '⁆' // stands for any ']' of an Inline value
)

// Text returns s safe to place inside any block Yakor writes: no '<' of it
// opens one of Tags and no '[' of it opens one of Markers. Line breaks stay.
func Text(s string) string {
	if !strings.ContainsAny(s, "<[") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i, r := range s {
		switch {
		case r == '<' && opensTag(s[i+1:]):
			b.WriteRune(TagOpen)
		case r == '[' && opensMarker(s[i+1:]):
			b.WriteRune(MarkerOpen)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Inline returns s safe to place on one line inside a bracketed header or
// a one-line entry: Text's escapes, every ']' as '⁆', and each run of white
// space (line breaks too) as one space.
func Inline(s string) string {
	// White space first: collapsing it after escaping could cut a text
	// short partway into a delimiter ("<m " to "<m"), which escaping
	// again would then change.
	s = Text(strings.Join(strings.Fields(s), " "))
	return strings.ReplaceAll(s, "]", string(MarkerClose))
}

// opensTag reports whether rest, the text after a '<', names one of Tags:
// after any spaces, slashes and invisible characters, the tag's name in any
// case.
func opensTag(rest string) bool {
	rest = strings.TrimLeftFunc(rest, func(r rune) bool { return r == '/' || ignorable(r) })
	return hasWords(rest, Tags)
}

// opensMarker reports whether rest, the text after a '[', begins one of
// Markers, in any case and with any spacing between its words.
func opensMarker(rest string) bool {
	return hasWords(strings.TrimLeftFunc(rest, ignorable), Markers)
}

// hasWords reports whether s begins with one of words, comparing letters
// case-insensitively, skipping invisible characters, and taking any run of
// separators (white space, '-', '_', none at all) for each space or '-' of
// the word: when in doubt, a delimiter. A text that ends before the word
// does counts too, since the text that follows it in the prompt could
// complete it.
func hasWords(s string, words []string) bool {
	for _, w := range words {
		if prefixFold(s, w) {
			return true
		}
	}
	return false
}

func prefixFold(s, word string) bool {
	for _, want := range word {
		if want == ' ' || want == '-' {
			s = strings.TrimLeftFunc(s, separator)
			continue
		}
		s = strings.TrimLeftFunc(s, isFormat)
		r, size := utf8.DecodeRuneInString(s)
		if size == 0 {
			// The text ends inside the delimiter: whatever Yakor writes
			// next (another field, a line break) could complete it.
			return true
		}
		if !strings.EqualFold(string(r), string(want)) {
			return false
		}
		s = s[size:]
	}
	return true
}

// ignorable is white space or an invisible character (a zero-width space,
// a joiner, a soft hyphen, NUL), which a reader may not see between the
// characters of a delimiter.
func ignorable(r rune) bool { return unicode.IsSpace(r) || isFormat(r) }

func separator(r rune) bool { return ignorable(r) || r == '-' || r == '_' }

func isFormat(r rune) bool { return r == 0 || unicode.Is(unicode.Cf, r) }
