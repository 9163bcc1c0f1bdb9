// Package fencetest counts the delimiters of fence in a text, the way a
// reader would see them, independently of how fence escapes: tests use it
// to check that stored text forged or closed no block of a prompt.
package fencetest

import (
	"regexp"
	"strings"
	"unicode"

	"yakor/fence"
)

// patterns match each tag and marker of fence, in any case, with any
// spacing, hyphens, underscores or slashes where a reader would still see
// the delimiter; invisible characters are taken out before matching.
var patterns = func() map[string]*regexp.Regexp {
	sep := `[\s\-_]*`
	out := map[string]*regexp.Regexp{}
	for _, t := range fence.Tags {
		out["<"+t] = regexp.MustCompile(`(?i)<[\s/]*` + words(t, sep))
	}
	for _, m := range fence.Markers {
		out["["+m] = regexp.MustCompile(`(?i)\[\s*` + words(m, sep))
	}
	return out
}()

func words(w, sep string) string {
	var b strings.Builder
	for _, r := range w {
		if r == ' ' || r == '-' {
			b.WriteString(sep)
			continue
		}
		b.WriteString(regexp.QuoteMeta(string(r)))
	}
	return b.String()
}

// Count returns how many times each delimiter of fence appears in s, keyed
// "<memory-context" (opening and closing tags both) or "[SUMMARY" and so
// on; delimiters that do not appear are left out.
func Count(s string) map[string]int {
	s = strings.Map(func(r rune) rune {
		if r == 0 || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, s)
	out := map[string]int{}
	for k, re := range patterns {
		if n := len(re.FindAllStringIndex(s, -1)); n > 0 {
			out[k] = n
		}
	}
	return out
}
