package search_test

import (
	"context"
	"slices"
	"testing"

	"yakor/postgres/pgtest"
	"yakor/search"
)

// TestMeaningFindsWhatSharesNoWord: the meaning leg finds a message that
// shares no word with the question ("martial arts" and "kickboxing"),
// first among the thread's; without it the search finds nothing. Only the
// thread's own messages, older than BeforeID, are compared.
func TestMeaningFindsWhatSharesNoWord(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, pgtest.New(t))
	a := f.tenant(t)
	scope, ids := f.thread(t, a,
		"I'm doing kickboxing twice a week, it gives me so much energy.",
		"We baked a chocolate cake for grandma's birthday.",
		"The new bookshelf finally arrived and fits the living room.",
		"My sister moved to a flat near the harbour.",
		"Pasta with tomatoes again tonight.",
	)
	other, _ := f.thread(t, a, "I'm doing karate and judo every evening.")
	const q = "What martial arts has John practised?"

	plain := f.search(t, scope, q, search.Options{NoNeighbours: true})
	if len(plain) != 0 {
		t.Fatalf("without the meaning leg: hits %v, want none (the test needs a question sharing no word)", plain)
	}
	meaning := f.searcher.WithSemantic(search.NewMeaning(f.pool))
	for _, run := range []string{"computed", "cached"} {
		res, err := meaning.Search(ctx, scope, q, search.Options{NoNeighbours: true})
		if err != nil || res.SemanticErr != nil {
			t.Fatalf("%s: search: %v, %v", run, err, res.SemanticErr)
		}
		got := hitIDs(res)
		if len(got) == 0 || got[0] != ids[0] {
			t.Errorf("%s: hits %v, want the kickboxing message %d first", run, got, ids[0])
		}
	}

	res, err := meaning.Search(ctx, scope, q, search.Options{NoNeighbours: true, BeforeID: ids[0]})
	if err != nil || len(res.Hits) != 0 {
		t.Errorf("before the first message: hits %v (err %v), want none", hitIDs(res), err)
	}
	res, err = meaning.Search(ctx, other, q, search.Options{NoNeighbours: true})
	if err != nil || slices.Contains(hitIDs(res), ids[0]) || len(res.Hits) != 1 {
		t.Errorf("the other thread: hits %v (err %v), want its own message only", hitIDs(res), err)
	}
}

// TestMeaningHasNoRussian: a Russian question has no vector, so the
// meaning leg finds nothing for it, and an English one nothing in Russian
// messages.
func TestMeaningHasNoRussian(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, pgtest.New(t))
	scope, _ := f.thread(t, f.tenant(t), "Я занимаюсь кикбоксингом два раза в неделю.")
	meaning := search.NewMeaning(f.pool)
	for _, q := range []string{"Какими единоборствами занимается Иван?", "What martial arts has John practised?"} {
		ns, err := meaning.Nearest(ctx, scope, q, 10, 0)
		if err != nil || len(ns) != 0 {
			t.Errorf("%q: neighbours %v (err %v), want none", q, ns, err)
		}
	}
}
