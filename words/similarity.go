package words

// Similarity returns how alike two topics are, in [0,1]: the larger of
// pg_trgm's trigram similarity (each word padded with two spaces in front
// and one behind; shared trigrams over all trigrams of both) and the share
// of the shorter topic's words that the other has, both over the topics'
// Snowball stems (Keywords), so "прайс ЛДСП" and "прайса лдсп" are 1, and
// "доставка москве" and "доставка субботу" share their subject. A topic
// made only of stop words or short words falls back to its folded words. An
// empty topic gives 0.
func Similarity(a, b string) float64 {
	wa, wb := topicWords(a), topicWords(b)
	return max(jaccard(trigrams(wa), trigrams(wb)), overlap(wa, wb))
}

// NewSimilarity returns Similarity that remembers each topic's stems, for
// comparing many topics with the same ones. It is not safe for concurrent
// use.
func NewSimilarity() func(a, b string) float64 {
	cache := map[string][]string{}
	words := func(t string) []string {
		w, ok := cache[t]
		if !ok {
			w = topicWords(t)
			cache[t] = w
		}
		return w
	}
	return func(a, b string) float64 {
		wa, wb := words(a), words(b)
		return max(jaccard(trigrams(wa), trigrams(wb)), overlap(wa, wb))
	}
}

// overlap is |a∩b| / min(|a|, |b|) over distinct words.
func overlap(a, b []string) float64 {
	sa, sb := set(a), set(b)
	if len(sa) == 0 || len(sb) == 0 {
		return 0
	}
	shared := 0
	for w := range sa {
		if _, ok := sb[w]; ok {
			shared++
		}
	}
	return float64(shared) / float64(min(len(sa), len(sb)))
}

func set(words []string) map[string]struct{} {
	s := make(map[string]struct{}, len(words))
	for _, w := range words {
		s[w] = struct{}{}
	}
	return s
}

// topicWords returns a topic's stems, or its folded words when it has no
// keyword.
func topicWords(topic string) []string {
	var words []string
	for _, kw := range Keywords(topic, nil) {
		words = append(words, kw.Stem)
	}
	if len(words) == 0 {
		words = Fields(topic)
	}
	return words
}

// trigrams returns the trigram set of words.
func trigrams(words []string) map[string]struct{} {
	set := map[string]struct{}{}
	for _, w := range words {
		r := []rune("  " + w + " ")
		for i := 0; i+3 <= len(r); i++ {
			set[string(r[i:i+3])] = struct{}{}
		}
	}
	return set
}

// jaccard returns |a∩b| / |a∪b|, 0 when either is empty.
func jaccard(a, b map[string]struct{}) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	shared := 0
	for t := range a {
		if _, ok := b[t]; ok {
			shared++
		}
	}
	return float64(shared) / float64(len(a)+len(b)-shared)
}
