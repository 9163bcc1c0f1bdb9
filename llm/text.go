package llm

import (
	"hash/fnv"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// OfflineDims is the length of the offline provider's embedding vectors.
const OfflineDims = 384

// words splits text into lower-cased runs of letters and digits, with ё
// folded into е.
func words(text string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for _, r := range text {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		r = unicode.ToLower(r)
		if r == 'ё' {
			r = 'е'
		}
		b.WriteRune(r)
	}
	flush()
	return out
}

// keywords returns the distinct words of text that carry meaning: at least
// three runes long and not stop words, in order of first appearance.
func keywords(text string) []string {
	seen := make(map[string]bool)
	var out []string
	for _, w := range words(text) {
		if utf8.RuneCountInString(w) < 3 || stopWord(w) || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// related reports whether two lower-cased words likely share a stem: their
// first five runes agree, or, for a shorter word, it begins the other, which
// is at most two runes longer.
func related(a, b string) bool {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > len(rb) {
		ra, rb = rb, ra
	}
	p := 0
	for p < len(ra) && ra[p] == rb[p] {
		p++
	}
	if len(ra) >= 5 {
		return p >= 5
	}
	return p == len(ra) && len(rb)-len(ra) <= 2
}

// stopWord reports whether w is a common English or Russian word that says
// nothing about a question's subject.
func stopWord(w string) bool {
	switch w {
	case "the", "and", "for", "are", "but", "not", "you", "your", "yours", "all", "any", "can",
		"had", "her", "was", "one", "our", "out", "has", "have", "his", "him", "how", "its",
		"who", "whom", "did", "does", "doing", "what", "when", "where", "which", "why", "with",
		"this", "that", "these", "those", "from", "they", "them", "then", "than", "there",
		"their", "been", "being", "were", "will", "would", "could", "should", "shall", "about",
		"into", "over", "also", "just", "only", "some", "such", "very", "more", "most", "other",
		"each", "here", "yes", "please", "tell", "know", "say", "said", "again", "she", "get",
		"got", "may", "might", "must", "let", "now", "too", "use", "used", "want", "way",
		"like", "much", "many", "mine", "myself", "ours", "off", "own", "same", "both", "because",
		"while", "after", "before", "under", "remind", "recall", "remember":
		return true
	case "что", "как", "это", "эта", "эти", "этот", "этого", "этом", "так", "вот", "был",
		"была", "были", "было", "быть", "все", "всех", "его", "она", "они", "оно",
		"мне", "меня", "мой", "моя", "мои", "мое", "наш", "наша", "наши", "ваш",
		"ваша", "ваши", "для", "при", "про", "под", "над", "без", "или", "если", "уже",
		"еще", "тоже", "там", "тут", "где", "когда", "кто", "чем", "чего", "почему",
		"зачем", "какой", "какая", "какие", "какое", "каков", "нет", "только", "очень",
		"можно", "нужно", "надо", "есть", "тебя", "тебе", "тот", "себя", "свой", "который",
		"которая", "которые", "которое", "напомни", "скажи", "помнишь", "пожалуйста",
		"нас", "вас", "нам", "вам", "них", "ним", "него", "нее", "ней",
		"тогда", "потом", "сейчас", "теперь", "даже", "ведь", "этой", "тем", "том", "той":
		return true
	}
	return false
}

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
	for _, w := range words(text) {
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
