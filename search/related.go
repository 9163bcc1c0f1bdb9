package search

import (
	"yakor/words"
)

// Bounds of widening a query with related words (widen), tuned on LoCoMo
// (bin/yakor bench locomo, categories 1–4, window and 8,000 characters of
// hits): evidence 86.2% → 87.1%, multi-hop 70.0% → 73.4%, open-domain
// 57.3% → 60.9%; the search's p50 1.01 → 1.60 ms. Without the bounds (every
// related word at 0.6, six a keyword) it found the same at six times the
// cost; ten a keyword found less.
const (
	// relatedPerKeyword is the most related words one keyword brings.
	relatedPerKeyword = 6
	// relatedMinSim is the similarity a related word needs.
	relatedMinSim = 0.6
	// relatedMax is the most related words one query brings.
	relatedMax = 12
	// relatedCommon is the frequency rank under which a related word is too
	// common to be worth its matches ("years" for "career").
	relatedCommon = 1000
)

// terms are a query's keywords and the related words that widen it, each
// with its weight: 1 for a keyword, the similarity for a related word.
type terms struct {
	kws     []words.Keyword
	weights []float64
	own     int   // the first own keywords are the query's; the rest are related words
	source  []int // each term's keyword: its own index for a keyword, the keyword it is related to for a related word
}

// widen adds to the query's keywords the English words related to them in
// meaning (words.Related: "guitar" brings drums, piano; "pets" brings cats,
// dogs), each weighing its similarity (and never more than its keyword:
// found.legs), within the bounds above; a related word that is a stop
// word, a speaker's name or a form of a keyword is left out. A
// conversation's evidence is often in other words than its question's
// ("What instrument does she play besides the guitar?" → "I practice the
// drums"); words only loosely related ("martial" and "kickboxing", 0.56)
// stay under the bounds.
func widen(kws []words.Keyword, names []string, off bool) terms {
	t := terms{kws: kws, weights: make([]float64, len(kws)), own: len(kws), source: make([]int, len(kws))}
	for i := range t.weights {
		t.weights[i], t.source[i] = 1, i
	}
	if off {
		return t
	}
	have := make(map[string]bool, len(kws))
	for _, k := range kws {
		have[k.Stem] = true
	}
	for ki, k := range kws {
		n := 0
		for _, r := range words.Related(k.Word) {
			if n == relatedPerKeyword || r.Sim < relatedMinSim || len(t.kws)-t.own == relatedMax {
				break
			}
			if r.Rank < relatedCommon {
				continue
			}
			w := words.Keywords(r.Word, names)
			if len(w) != 1 || have[w[0].Stem] {
				continue
			}
			have[w[0].Stem] = true
			t.kws = append(t.kws, w[0])
			t.weights = append(t.weights, r.Sim)
			t.source = append(t.source, ki)
			n++
		}
	}
	return t
}

// related returns the stems of the related words.
func (t terms) related() []string {
	out := make([]string, 0, len(t.kws)-t.own)
	for _, k := range t.kws[t.own:] {
		out = append(out, k.Stem)
	}
	return out
}
