package words

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
)

// vectorsFile holds the GloVe vectors of the related-words table's 40,000
// words (vectors.bin.gz, made by words/internal/relatedgen beside
// related.txt.gz): a header line "yakor-vectors 1 <words> <dims>", the
// words a line each, most frequent first, then each word's vector as
// signed bytes.
//
//go:embed vectors.bin.gz
var vectorsFile []byte

// MeaningDims is the length of a Meaning vector.
const MeaningDims = 100

// meaningCommon is the rank at which a word weighs half in a Meaning:
// a word of rank r weighs r/(r+meaningCommon), so that the frequent words
// ("time", "good", "really") say little and the rare ones the most
// (smooth inverse frequency, with GloVe's order as the frequency). On
// LoCoMo (bench locomo, the leg then ordered by the plain cosine) 30 found
// 88.8%, 10 88.6%, 100 88.3%, 400 88.1%.
const meaningCommon = 30

// vectors are the words' unit vectors, parsed once (about 0.1 s).
type vectors struct {
	index map[string]int
	vecs  [][MeaningDims]float32
}

var wordVectors = sync.OnceValue(func() *vectors {
	v, err := parseVectors(vectorsFile)
	if err != nil {
		panic("words: vectors.bin.gz: " + err.Error())
	}
	return v
})

func parseVectors(file []byte) (*vectors, error) {
	zr, err := gzip.NewReader(bytes.NewReader(file))
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(zr)
	var n, dims int
	head, err := br.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if _, err := fmt.Sscanf(head, "yakor-vectors 1 %d %d\n", &n, &dims); err != nil || dims != MeaningDims {
		return nil, fmt.Errorf("bad header %q", head)
	}
	v := &vectors{index: make(map[string]int, n), vecs: make([][MeaningDims]float32, n)}
	for i := range n {
		w, err := br.ReadString('\n')
		if err != nil {
			return nil, err
		}
		v.index[strings.TrimSuffix(w, "\n")] = i
	}
	row := make([]byte, dims)
	for i := range n {
		if _, err := io.ReadFull(br, row); err != nil {
			return nil, err
		}
		var norm float64
		for _, b := range row {
			norm += float64(int8(b)) * float64(int8(b))
		}
		norm = math.Sqrt(norm)
		for k, b := range row {
			v.vecs[i][k] = float32(float64(int8(b)) / norm)
		}
	}
	return v, nil
}

// Meaning returns a unit vector of what an English text is about: its
// words' GloVe vectors (stop words left out) averaged, each weighing the
// more the rarer the word (meaningCommon). Texts about the same things
// have vectors of a high cosine similarity (their dot product) even with
// no word in common: "I'm doing kickboxing" and "What martial arts has
// John done?". A text with none of the 40,000 words (a Russian one, a
// number) has none: nil.
func Meaning(text string) []float32 {
	v := wordVectors()
	stop := stopWords()
	var sum [MeaningDims]float32
	found := false
	for _, w := range Fields(Fold(text)) {
		i, ok := v.index[w]
		if !ok {
			continue
		}
		if _, ok := stop[w]; ok {
			continue
		}
		weight := float32(i) / float32(i+meaningCommon)
		for k, x := range v.vecs[i] {
			sum[k] += weight * x
		}
		found = true
	}
	if !found {
		return nil
	}
	var norm float64
	for _, x := range sum {
		norm += float64(x) * float64(x)
	}
	if norm == 0 {
		return nil
	}
	out := make([]float32, MeaningDims)
	for k, x := range sum {
		out[k] = float32(float64(x) / math.Sqrt(norm))
	}
	return out
}
