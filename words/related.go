package words

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"strconv"
	"strings"
	"sync"
)

// relatedTable is the table of related English words (related.txt.gz, made
// by words/internal/relatedgen from GloVe's vectors; scripts/related.sh):
// a line per word, most frequent first, with its related words, each with
// its cosine similarity in hundredths ("pets cats:75 animals:72 dogs:72 …").
//
//go:embed related.txt.gz
var relatedTable []byte

// Relation is a word related in meaning to another, and how closely: the
// cosine similarity of their GloVe vectors, in (0, 1]. Rank is the word's
// place among the table's words by frequency in GloVe's corpus (0: the most
// frequent); a frequent word says little.
type Relation struct {
	Word string
	Sim  float64
	Rank int
}

// relatedWords parses the table once, on first use (about 0.2 s).
var relatedWords = sync.OnceValue(func() map[string][]Relation {
	zr, err := gzip.NewReader(bytes.NewReader(relatedTable))
	if err != nil {
		panic("words: related.txt.gz: " + err.Error())
	}
	var (
		lines [][]string
		rank  = make(map[string]int, 40000)
	)
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		rank[f[0]] = len(lines)
		lines = append(lines, f)
	}
	if err := sc.Err(); err != nil {
		panic("words: related.txt.gz: " + err.Error())
	}
	table := make(map[string][]Relation, len(lines))
	for _, f := range lines {
		if len(f) < 2 {
			continue
		}
		rel := make([]Relation, 0, len(f)-1)
		for _, x := range f[1:] {
			w, sim, ok := strings.Cut(x, ":")
			n, err := strconv.Atoi(sim)
			if !ok || err != nil {
				panic("words: related.txt.gz: bad entry " + strconv.Quote(x))
			}
			rel = append(rel, Relation{Word: w, Sim: float64(n) / 100, Rank: rank[w]})
		}
		table[f[0]] = rel
	}
	return table
})

// Related returns the English words related in meaning to word (folded),
// most related first: "martial" gives karate, wushu, kickboxing, boxing;
// "pets" gives cats, animals, dogs…. Forms of the word itself and stop
// words are not among them; a word not among the 40,000 most frequent of
// GloVe's corpus (and every Russian word) has none. The slice is shared:
// callers must not change it.
func Related(word string) []Relation {
	return relatedWords()[word]
}
