package search

import (
	"testing"

	"yakor/words"
)

// TestCenteredLeavesOutTheThreadsUsualTalk: in a thread of messages alike
// (the common component, e0), a message that is about the query's own
// subject (e1) comes first once the thread's mean is taken away, though its
// plain cosine is below the usual messages'.
func TestCenteredLeavesOutTheThreadsUsualTalk(t *testing.T) {
	vec := func(x0, x1, x2 float32) meaningVec {
		f := make([]float32, words.MeaningDims)
		f[0], f[1], f[2] = x0, x1, x2
		return newMeaningVec(f, 0)
	}
	var vecs []meaningVec
	for range 8 {
		vecs = append(vecs, vec(1, 0, 0)) // the thread's usual talk
	}
	vecs = append(vecs, vec(0.6, 0.8, 0), vec(0.95, 0, 0.31)) // on the subject; aside
	q := make([]float32, words.MeaningDims)
	q[0], q[1] = 0.9, 0.436

	usual, subject, aside := len(vecs)-10, len(vecs)-2, len(vecs)-1
	if !(vecs[usual].cosine(q) > vecs[subject].cosine(q)) {
		t.Fatalf("the test needs a usual message nearer by the plain cosine: %.3f, %.3f", vecs[usual].cosine(q), vecs[subject].cosine(q))
	}
	c := centered(vecs, q)
	if !(c[subject] > c[aside] && c[aside] > c[usual]) {
		t.Errorf("centered: subject %.3f, aside %.3f, usual %.3f; want them in that order", c[subject], c[aside], c[usual])
	}
	if c := centered(nil, q); len(c) != 0 {
		t.Errorf("no messages: %v", c)
	}
	if c := centered(vecs[:1], q); c[0] != 0 {
		t.Errorf("one message is the mean: similarity %v, want 0", c[0])
	}
}
