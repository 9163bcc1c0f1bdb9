package search

import (
	"slices"
	"testing"

	"yakor/words"
)

// TestWidenBounds: related words stay within their bounds: not too common,
// similar enough, a few per keyword and a dozen per query, none a form of
// a keyword or a speaker's name; off, none.
func TestWidenBounds(t *testing.T) {
	kws := words.Keywords("career guitar pets karate drums piano dog cat art music dance hobbies", nil)
	w := widen(kws, nil, false)
	if w.own != len(kws) || len(w.kws)-w.own == 0 || len(w.kws)-w.own > relatedMax {
		t.Fatalf("%d keywords, %d related: want some, at most %d", w.own, len(w.kws)-w.own, relatedMax)
	}
	stems := map[string]bool{}
	for i, k := range w.kws {
		if stems[k.Stem] {
			t.Errorf("stem %q twice", k.Stem)
		}
		stems[k.Stem] = true
		if i < w.own {
			if w.weights[i] != 1 {
				t.Errorf("keyword %q weighs %v, want 1", k.Word, w.weights[i])
			}
			continue
		}
		if w.weights[i] < relatedMinSim || w.weights[i] > 1 {
			t.Errorf("related %q weighs %v, want its similarity, at least %v", k.Word, w.weights[i], relatedMinSim)
		}
	}
	if slices.Contains(w.related(), "year") {
		t.Errorf("related %q: holds \"year\", too common to be worth its matches", w.related())
	}
	one := widen(words.Keywords("guitar", nil), nil, false)
	if n := len(one.kws) - one.own; n == 0 || n > relatedPerKeyword {
		t.Errorf("guitar brought %d related words, want 1 to %d", n, relatedPerKeyword)
	}
	if named := widen(words.Keywords("guitar", nil), []string{"Drums"}, false); slices.Contains(named.related(), "drum") {
		t.Errorf("related %q: holds a speaker's name", named.related())
	}
	if off := widen(kws, nil, true); len(off.kws) != len(kws) || len(off.related()) != 0 {
		t.Errorf("off: %d terms, want the %d keywords", len(off.kws), len(kws))
	}
}
