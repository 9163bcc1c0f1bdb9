package bench

// The benchmarks' generated text: short chat messages from a mixed
// vocabulary, the search corpus's Zipf-distributed words and the probe
// thread's everyday chat. Their words are in data/.

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
)

var (
	//go:embed data/words.txt
	wordsTxt string
	//go:embed data/syllables.txt
	syllablesTxt string
	//go:embed data/chitchat.json
	chitChatJSON []byte
)

// benchWords are the words of benchText: English and Russian, prices and
// units.
var benchWords = strings.Fields(wordsTxt)

// benchText makes a message of 20–400 characters from a mixed vocabulary.
func benchText(rng *rand.Rand) string {
	var b strings.Builder
	target := 20 + rng.IntN(380)
	for b.Len() < target {
		b.WriteString(benchWords[rng.IntN(len(benchWords))])
		b.WriteByte(' ')
	}
	return strings.TrimSpace(b.String())
}

// chitChat are the parts of lossChitChat's sentences, in order.
var chitChat = func() (c struct{ Who, Did, Where, When, After []string }) {
	if err := json.Unmarshal(chitChatJSON, &c); err != nil {
		panic(fmt.Sprintf("bench: data/chitchat.json: %v", err))
	}
	return c
}()

// lossChitChat makes one line of everyday chat.
func lossChitChat(rng *rand.Rand) string {
	c := chitChat
	return pickOf(rng, c.Who) + " " + pickOf(rng, c.Did) + " " + pickOf(rng, c.Where) + " " + pickOf(rng, c.When) + ". " + pickOf(rng, c.After)
}

// zipfCorpus makes text from a vocabulary whose word frequencies follow
// Zipf's law, as natural language does.
type zipfCorpus struct {
	words []string
}

func newZipfCorpus(seed uint64) *zipfCorpus {
	rng := rand.New(rand.NewPCG(seed, seed))
	syl := strings.Fields(syllablesTxt)
	seen := map[string]bool{}
	var words []string
	for len(words) < 50_000 {
		var b strings.Builder
		for range 2 + rng.IntN(3) {
			b.WriteString(syl[rng.IntN(len(syl))])
		}
		if w := b.String(); !seen[w] && len([]rune(w)) >= 4 {
			seen[w] = true
			words = append(words, w)
		}
	}
	return &zipfCorpus{words: words}
}

// stream returns a generator of messages of its own (its own random
// source, for loaders that run several at once), the same for the same
// seed.
func (c *zipfCorpus) stream(seed uint64) func() string {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	zipf := rand.NewZipf(rng, 1.07, 1, uint64(len(c.words)-1))
	return func() string { return c.message(rng, zipf) }
}

// message is 8–60 words, sometimes with a number.
func (c *zipfCorpus) message(rng *rand.Rand, zipf *rand.Zipf) string {
	n := 8 + rng.IntN(53)
	parts := make([]string, 0, n+1)
	for range n {
		parts = append(parts, c.words[zipf.Uint64()])
	}
	if rng.IntN(4) == 0 {
		parts = append(parts, fmt.Sprint(100+rng.IntN(100_000)))
	}
	return strings.Join(parts, " ")
}

// query is two or three words of middling frequency (ranks 200–20,000),
// and half the time a common one (rank < 200).
func (c *zipfCorpus) query(rng *rand.Rand) string {
	var parts []string
	for range 2 + rng.IntN(2) {
		parts = append(parts, c.words[200+rng.IntN(19_800)])
	}
	if rng.IntN(2) == 0 {
		parts = append(parts, c.words[rng.IntN(200)])
	}
	return strings.Join(parts, " ")
}
