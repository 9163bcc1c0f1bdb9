package search_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"yakor"
	"yakor/postgres/pgtest"
	"yakor/search"
)

// fakeSemantic answers every query with its neighbours and records the
// calls.
type fakeSemantic struct {
	neighbours []search.Neighbour
	err        error

	mu    sync.Mutex
	calls []fakeCall
}

type fakeCall struct {
	scope    yakor.Scope
	query    string
	k        int
	beforeID int64
}

func (f *fakeSemantic) Nearest(ctx context.Context, scope yakor.Scope, query string, k int, beforeID int64) ([]search.Neighbour, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fakeCall{scope, query, k, beforeID})
	return slices.Clone(f.neighbours), f.err
}

func (f *fakeSemantic) called() []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// TestSemanticLeg: a message that shares no word with the query is found
// through the semantic leg when the searcher has one and the search does
// not switch it off; the keyword hits stay.
func TestSemanticLeg(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, pgtest.New(t))
	a := f.tenant(t)
	scope, ids := f.thread(t, a,
		"the walnut board is on the invoice",         // 0: keyword hit
		"we paid 900 euros a month for the flat",     // 1: meaning only
		"the weather was lovely",                     // 2: below the threshold
		"the walnut veneer costs more than the oak",  // 3: keyword hit
		"I went hiking in the mountains on Saturday", // 4: newest
	)
	_, foreignIDs := f.thread(t, a, "another thread: rent of the flat")
	sem := &fakeSemantic{neighbours: []search.Neighbour{
		{MessageID: ids[1], Similarity: 0.8},
		{MessageID: foreignIDs[0], Similarity: 0.7}, // not this thread's: never a hit
		{MessageID: ids[2], Similarity: 0.1},        // under DefaultMinSimilarity
	}}
	plain := f.searcher
	withSem := plain.WithSemantic(sem)
	for _, tc := range []struct {
		name     string
		searcher *search.Searcher
		opt      search.Options
		want     []int64
	}{
		{"Without", plain, search.Options{}, []int64{ids[3], ids[0]}},
		{"With", withSem, search.Options{}, []int64{ids[1], ids[3], ids[0]}},
		{"NoSemantic", withSem, search.Options{NoSemantic: true}, []int64{ids[3], ids[0]}},
		{"LowThreshold", withSem, search.Options{MinSimilarity: 0.05}, []int64{ids[1], ids[3], ids[0], ids[2]}},
		{"AnyThreshold", withSem, search.Options{MinSimilarity: -1}, []int64{ids[1], ids[3], ids[0], ids[2]}},
		{"HighThreshold", withSem, search.Options{MinSimilarity: 0.9}, []int64{ids[3], ids[0]}},
		// The window's messages stay out, whatever the leg returns.
		{"BeforeID", withSem, search.Options{BeforeID: ids[1]}, []int64{ids[0]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opt.NoNeighbours = true
			res, err := tc.searcher.Search(ctx, scope, "walnut", tc.opt)
			if err != nil || res.SemanticErr != nil {
				t.Fatalf("search: %v, %v", err, res.SemanticErr)
			}
			got := hitIDs(res)
			// The fused order of hits found by one leg each is RRF's;
			// compare as sets, with the semantic leg's top hit and the
			// keyword hits all kept.
			if !sameSet(got, tc.want) {
				t.Fatalf("found %v, want %v", got, tc.want)
			}
			if slices.Contains(got, foreignIDs[0]) {
				t.Fatal("found another thread's message")
			}
		})
	}
	calls := sem.called()
	if len(calls) == 0 {
		t.Fatal("the semantic leg was never asked")
	}
	last := calls[len(calls)-1]
	if last.scope != scope || last.query != "walnut" || last.k <= 0 || last.beforeID != ids[1] {
		t.Fatalf("last call: %+v", last)
	}
	// WithSemantic made a copy: the plain searcher has no semantic leg.
	before := len(sem.called())
	if _, err := plain.Search(ctx, scope, "walnut", search.Options{}); err != nil {
		t.Fatal(err)
	}
	if len(sem.called()) != before {
		t.Fatal("the plain searcher asked the semantic leg")
	}
	// A query without keywords finds nothing, not even by meaning.
	res, err := withSem.Search(ctx, scope, "the what which", search.Options{})
	if err != nil || len(res.Hits) != 0 || len(sem.called()) != before {
		t.Fatalf("stop words: %+v, %v (semantic asked: %v)", res.Hits, err, len(sem.called()) != before)
	}
}

// TestSemanticLegFails: a failing semantic leg leaves the search to the
// lexical legs and says why; a done context fails the search.
func TestSemanticLegFails(t *testing.T) {
	f := newFixture(t, pgtest.New(t))
	scope, ids := f.thread(t, f.tenant(t), "the walnut board", "something else")
	boom := errors.New("model down")
	sem := &fakeSemantic{err: boom}
	res, err := f.searcher.WithSemantic(sem).Search(context.Background(), scope, "walnut", search.Options{NoNeighbours: true})
	if err != nil || !errors.Is(res.SemanticErr, boom) || !slices.Equal(hitIDs(res), []int64{ids[0]}) {
		t.Fatalf("hits %v, err %v, semantic err %v", hitIDs(res), err, res.SemanticErr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.searcher.WithSemantic(sem).Search(ctx, scope, "walnut", search.Options{}); err == nil {
		t.Fatal("a cancelled search succeeded")
	}
}

func hitIDs(res search.Result) []int64 {
	ids := []int64{}
	for _, h := range res.Hits {
		if !h.Neighbour {
			ids = append(ids, h.MessageID)
		}
	}
	return ids
}

func sameSet(a, b []int64) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
