package search_test

import (
	"strings"
	"testing"

	"yakor/search"
	"yakor/words"
)

// FuzzPatterns checks the statements' arguments built from a text's
// keywords (words.Keywords, whose own invariants FuzzKeywords in package
// words checks): the ILIKE patterns are the stems between two % with no
// other wildcard, and the full-text query is the words joined by " or ".
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
		pats := search.Patterns(kws)
		ws := make([]string, len(kws))
		for i, k := range kws {
			ws[i] = k.Word
			inner, ok := strings.CutPrefix(pats[i], "%")
			inner, ok2 := strings.CutSuffix(inner, "%")
			if !ok || !ok2 || inner != k.Stem || strings.ContainsAny(inner, `%_\`) {
				t.Errorf("pattern %q for the stem %q", pats[i], k.Stem)
			}
		}
		if q := search.TSQuery(kws); q != strings.Join(ws, " or ") {
			t.Errorf("full-text query %q for the words %q", q, ws)
		}
	})
}
