package llm

import (
	"hash/fnv"
	"math"

	"yakor/words"
)

// OfflineDims is the length of the offline provider's embedding vectors.
const OfflineDims = 384

// offlineVector embeds text as hashed features: each word and each
// character 3-gram of the word with boundary markers, hashed with FNV-1a into
// OfflineDims buckets and signed by a further bit of the hash, then scaled to
// unit length. Text without words gives the zero vector.
func offlineVector(text string) []float32 {
	acc := make([]float64, OfflineDims)
	h := fnv.New64a()
	add := func(feature string, weight float64) {
		h.Reset()
		_, _ = h.Write([]byte(feature))
		sum := h.Sum64()
		i := sum % OfflineDims
		if sum>>63 == 1 {
			weight = -weight
		}
		acc[i] += weight
	}
	for _, w := range words.Fields(text) {
		add("w\x00"+w, 1)
		r := []rune("<" + w + ">")
		for i := 0; i+3 <= len(r); i++ {
			add("g\x00"+string(r[i:i+3]), 0.5)
		}
	}
	var norm float64
	for _, x := range acc {
		norm += x * x
	}
	v := make([]float32, OfflineDims)
	if norm == 0 {
		return v
	}
	norm = math.Sqrt(norm)
	for i, x := range acc {
		v[i] = float32(x / norm)
	}
	return v
}
