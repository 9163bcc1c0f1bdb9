package words_test

import (
	"slices"
	"testing"

	"yakor/words"
)

// TestRelated: the table gives the words nearest in meaning, most similar
// first, without stop words or forms of the word itself; Russian and rare
// words have none.
func TestRelated(t *testing.T) {
	for _, c := range []struct {
		word string
		want []string // among the related words
	}{
		{"guitar", []string{"drums", "piano"}},
		{"pets", []string{"cats", "dogs"}},
		{"karate", []string{"judo", "kickboxing", "taekwondo"}},
	} {
		rel := words.Related(c.word)
		got := make([]string, len(rel))
		for i, r := range rel {
			got[i] = r.Word
			if !(r.Sim > 0 && r.Sim <= 1) || (i > 0 && r.Sim > rel[i-1].Sim) {
				t.Errorf("Related(%q)[%d] = %+v: similarity out of (0, 1] or out of order", c.word, i, r)
			}
			if kw := words.Keywords(r.Word, nil); len(kw) != 1 || kw[0].Stem == words.Keywords(c.word, nil)[0].Stem {
				t.Errorf("Related(%q) holds %q, a stop word or a form of the word", c.word, r.Word)
			}
		}
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("Related(%q) = %q, want %q among them", c.word, got, w)
			}
		}
	}
	for _, w := range []string{"гитара", "the", "zzyzx", ""} {
		if rel := words.Related(w); len(rel) != 0 {
			t.Errorf("Related(%q) = %v, want none", w, rel)
		}
	}
}

// TestRelatedRank: a related word's rank is its frequency rank, the common
// words first.
func TestRelatedRank(t *testing.T) {
	rank := map[string]int{}
	for _, w := range []string{"children", "dog", "karate"} {
		for _, r := range words.Related(w) {
			rank[r.Word] = r.Rank
		}
	}
	// "kids" (children's) is far more common than "taekwondo" (karate's).
	if !(rank["kids"] < rank["taekwondo"]) || rank["kids"] == 0 {
		t.Errorf("ranks: kids %d, taekwondo %d; want kids the more frequent, not the first word", rank["kids"], rank["taekwondo"])
	}
}
