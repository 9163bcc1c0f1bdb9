package bench

// Planted facts in a long thread, for yakor bench locomo-loss.

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"yakor"
	"yakor/facts"
	"yakor/history"
	"yakor/search"
	"yakor/words"
)

// lossProbe is one planted fact's result.
type lossProbe struct {
	Name    string   `json:"name"`
	Message string   `json:"message"`
	Value   string   `json:"value"`
	Layers  []string `json:"layers"`    // the layers but search that hold it
	Layer   string   `json:"layer"`     // the first of them; "" when none
	Search  bool     `json:"search"`    // a search with its question finds the planted message
	Reached bool     `json:"reachable"` // without search
}

// lossProbeMessages is the probe thread: a first exchange (which the
// window keeps verbatim, so no probe is in it), the planted facts, each with
// a short reply, then the filler as alternating messages and replies.
func lossProbeMessages(filler []string) ([]history.NewMessage, []int) {
	msgs := []history.NewMessage{
		{Role: history.RoleUser, Content: "Hi! I am starting a new project and would like your help to keep track of it as we go."},
		{Role: history.RoleAssistant, Content: "Of course. Tell me about it whenever you like."},
	}
	var planted []int
	for i, pr := range lossProbeSet {
		planted = append(planted, len(msgs))
		msgs = append(msgs, history.NewMessage{Role: history.RoleUser, Content: pr.message},
			history.NewMessage{Role: history.RoleAssistant, Content: []string{"Noted.", "Understood, thank you.", "Nice to meet you."}[i%3]})
	}
	for i, f := range filler {
		role := history.RoleUser
		if i%2 == 1 {
			role = history.RoleAssistant
		}
		msgs = append(msgs, history.NewMessage{Role: role, Content: f})
	}
	return msgs, planted
}

// probes grows the probe thread through the pipeline and looks for each
// planted fact in the layers of its last prompt.
func (p *lossPipeline) probes(ctx context.Context, scope yakor.Scope, filler []string) ([]lossProbe, lossThreadStats, error) {
	msgs, planted := lossProbeMessages(filler)
	stats := lossThreadStats{ID: "probes", Messages: len(msgs)}
	start := time.Now()
	thread, ids, err := p.grow(ctx, scope, "locomo-loss probes", msgs)
	if err != nil {
		return nil, stats, err
	}
	stats.PipelineSeconds = time.Since(start).Seconds()
	start = time.Now()
	layers, err := p.layers(ctx, thread, &stats)
	if err != nil {
		return nil, stats, err
	}
	var out []lossProbe
	for i, pr := range lossProbeSet {
		r := lossProbe{Name: pr.name, Message: pr.message, Value: pr.value, Layers: []string{}}
		id := ids[planted[i]]
		if layers.window[id] {
			r.Layers = append(r.Layers, lossLayerNames[lossWindow])
		}
		for _, l := range lossTextLayers {
			if strings.Contains(layers.text[l].folded, words.Fold(pr.value)) {
				r.Layers = append(r.Layers, lossLayerNames[l])
			}
		}
		if len(r.Layers) > 0 {
			r.Layer, r.Reached = r.Layers[0], true
		}
		res, err := p.searcher.Search(ctx, thread, pr.question, search.Options{Budget: p.budget})
		if err != nil {
			return nil, stats, err
		}
		r.Search = slices.ContainsFunc(res.Hits, func(h search.Hit) bool { return h.MessageID == id })
		out = append(out, r)
	}
	stats.MeasureSeconds = time.Since(start).Seconds()
	return out, stats, nil
}

// lossProbeSlots are the slots of the probes' facts: a filler message that
// would set one (a newer budget) would rightly replace a probe.
var lossProbeSlots = []string{"user.name", "project.budget", "project.version:postgresql"}

// lossFiller returns n filler messages for the probe thread: the
// conversations' messages in order, but those that state a probe's slot
// or value, then generated chit-chat when they run out.
func lossFiller(convs []locomoConv, n int) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range convs {
		for _, m := range c.msgs {
			if len(out) == n {
				return out
			}
			if seen[m.Content] || lossStatesProbe(m.Content) {
				continue
			}
			seen[m.Content] = true
			out = append(out, m.Content)
		}
	}
	rng := rand.New(rand.NewPCG(7, 11))
	for len(out) < n {
		if s := lossChitChat(rng); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// lossStatesProbe reports whether text would set a probe's slot, or says
// its value.
func lossStatesProbe(text string) bool {
	cands, _ := facts.Offline(text, time.Time{})
	for _, c := range cands {
		if slices.Contains(lossProbeSlots, c.Slot) {
			return true
		}
	}
	folded := words.Fold(text)
	for _, pr := range lossProbeSet {
		if strings.Contains(folded, words.Fold(pr.value)) {
			return true
		}
	}
	return false
}

// lossRows are the table's rows.
var lossRows = []struct {
	name       string
	categories []int
}{
	{"1 multi-hop", []int{1}},
	{"2 temporal", []int{2}},
	{"3 open-domain", []int{3}},
	{"4 single-hop", []int{4}},
	{"1–4 overall", []int{1, 2, 3, 4}},
}
