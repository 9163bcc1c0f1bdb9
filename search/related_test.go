package search_test

import (
	"context"
	"slices"
	"testing"

	"yakor/postgres/pgtest"
	"yakor/search"
)

// TestQueryFindsRelatedWords: a question in other words than its answer
// finds it through the words related to its keywords, after the messages
// holding the keywords themselves; with NoRelated it does not.
func TestQueryFindsRelatedWords(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, pgtest.New(t))
	scope, ids := f.thread(t, f.tenant(t),
		"I practice the drums every evening now.",
		"The weather was lovely on Sunday.",
		"We had pasta for dinner.",
		"My guitar teacher moved to Berlin.",
		"The train was late again.",
	)
	drums, guitar := ids[0], ids[3]

	res, err := f.searcher.Search(ctx, scope, "What instrument does she play besides the guitar?", search.Options{NoNeighbours: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.Related, "drum") {
		t.Errorf("related stems %q, want drum among them", res.Related)
	}
	var got []int64
	for _, h := range res.Hits {
		got = append(got, h.MessageID)
	}
	if len(got) != 2 || got[0] != guitar || got[1] != drums {
		t.Errorf("hits %v, want the guitar message %d, then the drums one %d", got, guitar, drums)
	}

	got = f.search(t, scope, "What instrument does she play besides the guitar?", search.Options{NoNeighbours: true, NoRelated: true})
	if !slices.Equal(got, []int64{guitar}) {
		t.Errorf("without related words: hits %v, want only %d", got, guitar)
	}
}

// TestRelatedWordNeverOutweighsItsKeyword: a message with a related word
// rarer in the thread than the query's own keyword ranks after the message
// holding the keyword ("oak" is related to "walnut").
func TestRelatedWordNeverOutweighsItsKeyword(t *testing.T) {
	f := newFixture(t, pgtest.New(t))
	scope, ids := f.thread(t, f.tenant(t),
		"The walnut board costs 5150 a sheet.",
		"Noted.",
		"And the oak board?",
		"The walnut board is in stock.",
	)
	got := f.search(t, scope, "walnut board", search.Options{NoNeighbours: true})
	if len(got) != 3 || got[2] != ids[2] {
		t.Errorf("hits %v, want the oak message %d last of three", got, ids[2])
	}
}
