package search

import (
	"slices"
	"testing"
)

// TestFuseTiesShareTheirRank: the messages a leg scores alike (ten holding
// the same keyword) share their ranks' mean, so that no one of them counts
// as that leg's first only for being the newest: the meaning leg's first
// message goes before them. A list without ties keeps its order.
func TestFuseTiesShareTheirRank(t *testing.T) {
	ids := func(l []scored) []int64 {
		var out []int64
		for _, s := range l {
			out = append(out, s.id)
		}
		return out
	}
	var keyword []scored
	var alike []int64
	for id := int64(20); id > 10; id-- { // newest first, as a leg orders ties
		keyword = append(keyword, scored{id: id, score: 1})
		alike = append(alike, id)
	}
	meaning := []scored{{id: 5, score: 0}}
	if got, want := ids(fuse(keyword, meaning)), append([]int64{5}, alike...); !slices.Equal(got, want) {
		t.Errorf("fused %v, want %v", got, want)
	}
	distinct := []scored{{id: 1, score: 3}, {id: 4, score: 2}, {id: 3, score: 1}}
	if got, want := ids(fuse(distinct)), []int64{1, 4, 3}; !slices.Equal(got, want) {
		t.Errorf("one list without ties: %v, want %v", got, want)
	}
	if got, want := Fuse([]int64{5, 6, 7}, []int64{7}), []int64{7, 5, 6}; !slices.Equal(got, want) {
		t.Errorf("Fuse ranks its lists' ids by their order: %v, want %v", got, want)
	}
}
