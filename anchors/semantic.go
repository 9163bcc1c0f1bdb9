package anchors

import (
	"context"
	"log/slog"
	"math"
	"slices"
)

// Topics compared by meaning: with an embedding model configured, two
// topics the words do not relate ("доставка" and "привезут в пятницу",
// "car" and "vehicle") are the same subject when their embeddings are
// close. Offline, the words alone decide (words.Similarity).

// TopicEmbedder embeds topics; an embedding model when one is configured.
type TopicEmbedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// DefaultTopicCosine is the cosine similarity at or above which two
// topics' embeddings make them the same subject.
const DefaultTopicCosine = 0.75

// WithEmbedder makes the service compare topics by their embeddings too,
// with e; topics whose cosine similarity is at least s's TopicCosine are
// the same subject. nil leaves the words alone.
func (s *Service) WithEmbedder(e TopicEmbedder) *Service {
	s.embed = e
	return s
}

// topicMeaning compares topics by their words (lexical) and, when those
// do not make them the same subject, by their embeddings: a pair whose
// cosine is at least cosine counts as similar as the threshold same
// asks. Embeddings are fetched once per text, the known topics in one
// call with the first text asked for; a failed call leaves the words
// alone for the rest of the run (logged once).
type topicMeaning struct {
	ctx     context.Context
	embed   TopicEmbedder
	lexical func(a, b string) float64
	same    float64 // the decision's similarity threshold
	cosine  float64
	known   []string // topics embedded with the first call
	vecs    map[string][]float32
	failed  bool
	log     *slog.Logger
}

// similar is the measure Decide uses.
func (m *topicMeaning) similar(a, b string) float64 {
	lex := m.lexical(a, b)
	if lex >= m.same || m.failed {
		return lex
	}
	va, vb := m.vector(a), m.vector(b)
	if va == nil || vb == nil {
		return lex
	}
	if cosine(va, vb) >= m.cosine {
		return max(lex, m.same)
	}
	return lex
}

// vector returns text's embedding, fetching it (with the known topics not
// embedded yet) when it is not known.
func (m *topicMeaning) vector(text string) []float32 {
	if v, ok := m.vecs[text]; ok {
		return v
	}
	ask := []string{text}
	for _, k := range m.known {
		if _, ok := m.vecs[k]; !ok && k != text && !slices.Contains(ask, k) {
			ask = append(ask, k)
		}
	}
	vs, err := m.embed.Embed(m.ctx, ask)
	if err != nil || len(vs) != len(ask) {
		m.failed = true
		m.log.WarnContext(m.ctx, "topic embeddings failed; topics are compared by their words", "err", err)
		return nil
	}
	for i, t := range ask {
		m.vecs[t] = vs[i]
	}
	return m.vecs[text]
}

// cosine is the cosine similarity of two vectors (0 for a zero one or
// different lengths).
func cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
