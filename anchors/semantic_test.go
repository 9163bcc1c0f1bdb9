package anchors

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"yakor/words"
)

// vectors is an embedding model that knows some texts' vectors.
type vectors struct {
	of    map[string][]float32
	calls [][]string
	err   error
}

func (v *vectors) Embed(_ context.Context, texts []string) ([][]float32, error) {
	v.calls = append(v.calls, texts)
	if v.err != nil {
		return nil, v.err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = v.of[t]
		if out[i] == nil {
			out[i] = []float32{0, 0, 1}
		}
	}
	return out, nil
}

// TestTopicMeaning: with an embedding model, a topic the words do not
// relate to the current one but its meaning does is the same subject;
// an unrelated one is still a detour; the known topics are embedded in
// the first call; a failing model leaves the words alone.
func TestTopicMeaning(t *testing.T) {
	emb := &vectors{of: map[string][]float32{
		"delivery to Moscow": {1, 0, 0}, "the truck arrives": {0.95, 0.1, 0}, "weather in Almaty": {0, 1, 0}, "kitchen price list": {0.1, 0.2, 0.9},
	}}
	current := &Anchor{ID: 2, Topic: "delivery to Moscow", Data: "delivery 2500 руб"}
	earlier := []Anchor{{ID: 1, Topic: "kitchen price list"}, *current}
	decide := func(e TopicEmbedder, topic string) Outcome {
		m := &topicMeaning{ctx: context.Background(), embed: e, lexical: words.Similarity, same: DefaultSimilarity,
			cosine: DefaultTopicCosine, known: []string{"kitchen price list", "delivery to Moscow"}, vecs: map[string][]float32{}, log: slog.New(slog.DiscardHandler)}
		return Decide(Config{Similar: m.similar}, current, earlier, Position{Since: 400}, Extraction{Topic: topic})
	}
	if o := decide(emb, "the truck arrives"); o.Decision != NoAnchor || o.Rule != RuleSameTopic {
		t.Errorf("a topic of the same meaning: %+v, want same_topic", o)
	}
	if len(emb.calls) != 1 || len(emb.calls[0]) != 3 {
		t.Errorf("embedding calls %q: want one, with the known topics", emb.calls)
	}
	if o := decide(emb, "weather in Almaty"); o.Rule != RuleDetour {
		t.Errorf("an unrelated topic: %+v, want a detour", o)
	}
	if o := decide(&vectors{err: errors.New("model down")}, "the truck arrives"); o.Rule != RuleDetour {
		t.Errorf("with the model down: %+v, want the words alone (a detour)", o)
	}
	if o := decide(nil, "delivery to Moscow"); o.Rule != RuleSameTopic {
		t.Errorf("the same words need no model: %+v", o)
	}
}
