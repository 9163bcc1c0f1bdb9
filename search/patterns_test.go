package search_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"yakor/search"
	"yakor/words"
)

// FuzzPatterns checks the statements' arguments built from a text's
// keywords (words.Keywords, whose own invariants FuzzKeywords in package
// words checks): the stems are the keywords' (cut to the longest word a
// tsquery takes), with nothing to quote, and the full-text query is the
// words joined by " or ".
func FuzzPatterns(f *testing.F) {
	for _, s := range []string{
		"Сколько стоил прайс на ЛДСП?",
		"%' OR 1=1 --", "_%_", `a\b\\c`, `\\x\\ 100%_discount`,
		"'); DROP TABLE messages; --",
	} {
		f.Add(s, "Caroline")
	}
	f.Fuzz(func(t *testing.T, text, name string) {
		kws := words.Keywords(text, []string{name})
		stems := search.Stems(kws)
		ws := make([]string, len(kws))
		for i, k := range kws {
			ws[i] = k.Word
			st := stems[i]
			if !strings.HasPrefix(k.Stem, st) || st == "" || len(st) > 2038 || !utf8.ValidString(st) || strings.ContainsAny(st, `'\`) {
				t.Errorf("stem %q for the keyword stem %q", st, k.Stem)
			}
		}
		if q := search.TSQuery(kws); q != strings.Join(ws, " or ") {
			t.Errorf("full-text query %q for the words %q", q, ws)
		}
	})
}
