package search_test

import (
	"context"
	"testing"

	"yakor/history"
	"yakor/postgres/pgtest"
	"yakor/search"
)

// TestQueryNamingASpeakerFavoursTheirMessages: two speakers said the same
// thing; the newer comes first unless the query names the other.
func TestQueryNamingASpeakerFavoursTheirMessages(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, pgtest.New(t))
	scope := f.tenant(t)
	th, err := f.hist.CreateThread(ctx, scope, history.ThreadCreate{Title: "garden"})
	if err != nil {
		t.Fatal(err)
	}
	scope = scope.WithThread(th.ID)
	var ids []int64
	for _, author := range []string{"Anna", "Boris"} {
		m, _, err := f.hist.Append(ctx, scope, history.NewMessage{Role: history.RoleUser, Author: author, Content: "The garden tomatoes are ripe at last."})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	anna, boris := ids[0], ids[1]
	for _, c := range []struct {
		query string
		first int64
	}{
		{"What about the garden tomatoes?", boris},               // no one named: the newer
		{"What did Anna say about the garden tomatoes?", anna},   // Anna named
		{"What did Anna's garden tomatoes look like?", anna},     // in the possessive
		{"What did Boris say about the garden tomatoes?", boris}, // Boris named
	} {
		got := f.search(t, scope, c.query, search.Options{NoNeighbours: true})
		if len(got) != 2 || got[0] != c.first {
			t.Errorf("%q: hits %v, want both, %d first", c.query, got, c.first)
		}
	}
}
