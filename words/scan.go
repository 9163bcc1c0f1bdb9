package words

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// markup is removed from every sentence: markdown emphasis and code ticks.
var markup = strings.NewReplacer("**", "", "__", "", "`", "")

// Sentences splits text into trimmed, non-empty lines and sentences. A
// sentence ends at '!', '?', ';', '|' or '…', and at a '.' that is
// followed by white space and then not a lower-case letter (so "3 тыс. руб"
// and "2.57" stay whole). Leading list bullets and markdown emphasis are
// removed.
func Sentences(text string) []string {
	var out []string
	add := func(s string) {
		s = markup.Replace(s)
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

// TokenKind is the kind of a Token.
type TokenKind int

// Kinds of Token.
const (
	NumberToken TokenKind = iota // a number: "3", "2.57", "3 400", "1,5"
	WordToken                    // a run of letters
	SymbolToken                  // any other rune that is not white space
)

// Token is one number, word or symbol of a text (see Scan).
type Token struct {
	Kind TokenKind
	Text string
}

// Scan splits s into numbers, words and symbols; white space separates
// them and is dropped. A number may hold a decimal point or comma and
// thousands groups split by a space ("285 600"). Fold s first when its
// words are to be matched with IsUnit or IsTotalMarker.
func Scan(s string) []Token {
	var out []Token
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
			out = append(out, Token{NumberToken, s[i:j]})
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
			out = append(out, Token{WordToken, s[i:j]})
			i = j
		default:
			out = append(out, Token{SymbolToken, s[i : i+size]})
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
