package words

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Fold lower-cases s (Unicode) and turns ё into е. It is what the
// database's folded text is compared with. Fold returns s itself, without
// allocating, when s is already folded.
func Fold(s string) string {
	return strings.Map(foldRune, s)
}

// Fields returns the words of text folded (Fold): its maximal runs of
// letters and digits.
func Fields(text string) []string {
	return strings.FieldsFunc(Fold(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}
	r = unicode.ToLower(r)
	if r == 'ё' {
		return 'е'
	}
	return r
}

// Lang returns "ru" when text has more Cyrillic letters than Latin ones,
// else "en".
func Lang(text string) string {
	var cyr, lat int
	for _, r := range text {
		switch {
		case r < utf8.RuneSelf:
			if 'a' <= r|0x20 && r|0x20 <= 'z' {
				lat++
			}
		case unicode.Is(unicode.Cyrillic, r):
			if unicode.IsLetter(r) {
				cyr++
			}
		case unicode.Is(unicode.Latin, r):
			lat++
		}
	}
	if cyr > lat {
		return "ru"
	}
	return "en"
}
