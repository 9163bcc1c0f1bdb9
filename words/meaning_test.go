package words_test

import (
	"math"
	"testing"

	"yakor/words"
)

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// TestMeaning: texts about the same thing are nearer than texts about
// others, with no word in common; the vectors are unit vectors; a text
// with no known word has none.
func TestMeaning(t *testing.T) {
	q := words.Meaning("What martial arts has John practised?")
	near := words.Meaning("I'm doing kickboxing twice a week.")
	far := words.Meaning("We baked a chocolate cake for grandma's birthday.")
	if q == nil || near == nil || far == nil {
		t.Fatal("an English text has no vector")
	}
	for _, v := range [][]float32{q, near, far} {
		if len(v) != words.MeaningDims || math.Abs(cosine(v, v)-1) > 1e-4 {
			t.Fatalf("length %d, norm² %.5f: not a unit vector of %d", len(v), cosine(v, v), words.MeaningDims)
		}
	}
	if n, f := cosine(q, near), cosine(q, far); n <= f+0.1 {
		t.Errorf("martial arts ~ kickboxing %.2f, ~ cake %.2f: want the first clearly nearer", n, f)
	}
	for _, text := range []string{"", "Я занимаюсь кикбоксингом.", "the of and", "12 345"} {
		if v := words.Meaning(text); v != nil {
			t.Errorf("Meaning(%q) = a vector, want none", text)
		}
	}
}
