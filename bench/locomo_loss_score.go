package bench

// Where a LoCoMo question's evidence is reachable before and after
// compaction, for yakor bench locomo-loss.

import (
	"context"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"yakor"
	"yakor/history"
	"yakor/search"
	"yakor/turn"
)

// lossScore is one question's result.
type lossScore struct {
	category int
	leftOut  bool // no valid evidence
	// Shares of the question's evidence messages: counted at the first
	// layer that holds them; held by each layer; reachable (by any layer),
	// without search, with the turn's search (before the window's first
	// message) instead of the whole thread's.
	first, alone        [lossNLayers]float64
	reachable, noSearch float64
	turnSearch          float64
	turnReachable       float64
	// reachable with the search of the messages alone (summary rows left
	// out): the search of the thread imported without the pipeline.
	msgSearchReachable float64
	msgSearchLost      bool
	all                float64 // 1 when every evidence message is reachable
	// The same before compaction: the window, search, both.
	beforeWindow, beforeSearch, beforeReachable float64
	beforeTurnSearch, beforeTurnReachable       float64
	summaryHits                                 int // summary rows among the hits of the search after compaction
	summaryChars                                int // their characters
	lost                                        bool
	detail                                      lossLost
}

// lossLost is a question whose evidence compaction made unreachable.
type lossLost struct {
	Conversation string   `json:"conversation"`
	Category     int      `json:"category"`
	Question     string   `json:"question"`
	Evidence     []string `json:"evidence"` // the messages reachable before, not after
	// The messages that would be lost even had search left the summary rows
	// out: they scrolled out of the window and no layer kept them.
	WithoutSummaryRows []string `json:"without_summary_rows,omitempty"`
}

// lossFound is what one search found.
type lossFound struct {
	ids          map[int64]bool
	summaries    int // summary rows among the hits
	summaryChars int
}

// search runs question over scope's thread as the model's SEARCH_HISTORY
// would over the whole thread (the turn's, before its window, is
// turnPrompt's).
func (p *lossPipeline) search(ctx context.Context, scope yakor.Scope, question string) (lossFound, error) {
	res, err := p.searcher.Search(ctx, scope, question, search.Options{Budget: p.budget})
	if err != nil {
		return lossFound{}, fmt.Errorf("search %q: %w", question, err)
	}
	f := lossFound{ids: map[int64]bool{}}
	for _, h := range res.Hits {
		f.ids[h.MessageID] = true
		if h.Role == history.RoleSystem {
			f.summaries++
			f.summaryChars += utf8.RuneCountInString(h.Content)
		}
	}
	return f, nil
}

// turnPrompt builds the prompt question would get as a turn in scope's
// thread (turn.Engine.Preview: the window giving way to the prompt
// budget, the search before what is left of it, with the room left): the
// window's messages it holds, and what its search found.
func (p *lossPipeline) turnPrompt(ctx context.Context, scope yakor.Scope, question string) (window map[int64]bool, found lossFound, err error) {
	pv, err := p.engine.Preview(ctx, scope, question)
	if err != nil {
		return nil, lossFound{}, fmt.Errorf("preview %q: %w", question, err)
	}
	window, found = map[int64]bool{}, lossFound{ids: map[int64]bool{}}
	for _, l := range pv.Prompt.Layers {
		if l.Name == turn.LayerWindow {
			for _, id := range l.MessageIDs {
				window[id] = true
			}
		}
	}
	for _, h := range pv.Search.Hits {
		found.ids[h.MessageID] = true
	}
	return window, found, nil
}

// lossThreads are a conversation's two threads: imported whole (before
// compaction) and grown through the pipeline (after), with what a
// question's evidence is looked for in.
type lossThreads struct {
	before   locomoThread
	inBefore map[int64]bool // the before thread's window
	after    yakor.Scope
	ids      []int64 // the after thread's message of each of the conversation's
	layers   lossLayers
}

// conversation measures one conversation: imported whole into a thread
// without the pipeline (before compaction), and grown with it (after).
func (p *lossPipeline) conversation(ctx context.Context, scope yakor.Scope, c locomoConv) ([]lossScore, lossLayers, lossThreadStats, error) {
	stats := lossThreadStats{ID: c.id, Messages: len(c.msgs)}
	th, err := p.threads(ctx, scope, c, &stats)
	if err != nil {
		return nil, lossLayers{}, stats, err
	}
	start := time.Now()
	authors := locomoAuthors(c)
	var scores []lossScore
	var measured, reachBefore, reachAfter float64
	for _, q := range c.questions {
		if q.category < 1 || q.category > 4 {
			continue
		}
		s, err := p.score(ctx, c, q, th, authors, &stats)
		if err != nil {
			return nil, lossLayers{}, stats, err
		}
		if !s.leftOut {
			measured++
			reachBefore += s.beforeReachable
			reachAfter += s.reachable
		}
		scores = append(scores, s)
	}
	stats.MeasureSeconds = time.Since(start).Seconds()
	if measured > 0 {
		stats.ReachableBefore, stats.ReachableAfter = reachBefore/measured, reachAfter/measured
	}
	return scores, th.layers, stats, nil
}

// threads imports c whole into a thread of scope and grows it into
// another through the pipeline, and reads what the measuring needs of
// them.
func (p *lossPipeline) threads(ctx context.Context, scope yakor.Scope, c locomoConv, stats *lossThreadStats) (lossThreads, error) {
	var th lossThreads
	start := time.Now()
	var err error
	if th.before, err = locomoLoad(ctx, p.db, p.hist, scope, c); err != nil {
		return th, err
	}
	stats.LoadSeconds = time.Since(start).Seconds()
	start = time.Now()
	if th.after, th.ids, err = p.grow(ctx, scope, "locomo-loss "+c.id, c.msgs); err != nil {
		return th, err
	}
	stats.PipelineSeconds = time.Since(start).Seconds()
	if th.layers, err = p.layers(ctx, th.after, stats); err != nil {
		return th, err
	}
	win, err := p.hist.Window(ctx, th.before.scope, p.window, 0)
	if err != nil {
		return th, err
	}
	th.inBefore = map[int64]bool{}
	for _, m := range win {
		th.inBefore[m.ID] = true
	}
	return th, nil
}

// score measures question q of c: where its evidence is reachable before
// and after compaction.
func (p *lossPipeline) score(ctx context.Context, c locomoConv, q locomoQuestion, th lossThreads, authors []string, stats *lossThreadStats) (lossScore, error) {
	s := lossScore{category: q.category, leftOut: len(q.evidence) == 0}
	if s.leftOut {
		return s, nil
	}
	var found [4]lossFound // before: whole, turn's; after: whole, turn's
	var windows [2]map[int64]bool
	var err error
	for i, scope := range []yakor.Scope{th.before.scope, th.after} {
		if found[2*i], err = p.search(ctx, scope, q.text); err != nil {
			return s, err
		}
		if windows[i], found[2*i+1], err = p.turnPrompt(ctx, scope, q.text); err != nil {
			return s, err
		}
	}
	s.summaryHits, s.summaryChars = found[2].summaries, found[2].summaryChars
	if len(found[2].ids) > 0 && len(found[3].ids) == 0 {
		stats.TurnSearchEmpty++
	}
	if s.summaryHits > 0 {
		stats.SummarySearchHits++
	}
	share := 1 / float64(len(q.evidence))
	s.all = 1
	for _, idx := range q.evidence {
		var held [lossNLayers]bool
		id, was := th.ids[idx], th.before.ids[idx]
		held[lossWindow] = th.layers.window[id]
		e := newLossEvidence(c.msgs[idx].Content, authors)
		for _, l := range lossTextLayers {
			held[l] = th.layers.text[l].holds(e)
		}
		held[lossSearch] = found[2].ids[id]
		turnHeld := held
		turnHeld[lossWindow] = windows[1][id]
		s.add(share, held, turnHeld, found[3].ids[id], th.inBefore[was], windows[0][was], found[0].ids[was], found[1].ids[was], c.msgs[idx].Content)
	}
	s.lost = len(s.detail.Evidence) > 0
	if s.lost || s.msgSearchLost {
		s.detail.Conversation, s.detail.Category, s.detail.Question = c.id, q.category, q.text
	}
	return s, nil
}

// add counts an evidence message, a share of its question's: after
// compaction held by the layers held (turnHeld: with the window a turn's
// prompt keeps) and found by the turn's search (turn); before it in the
// window (bw; btw: the turn's), found by the whole thread's search (bs)
// and by the turn's (bt).
func (s *lossScore) add(share float64, held, turnHeld [lossNLayers]bool, turn, bw, btw, bs, bt bool, content string) {
	if l := slices.Index(held[:], true); l >= 0 {
		s.first[l] += share
		s.reachable += share
		if l != lossSearch {
			s.noSearch += share
		}
	} else {
		s.all = 0
	}
	for l, h := range held {
		if h {
			s.alone[l] += share
		}
	}
	if turn {
		s.turnSearch += share
	}
	if turn || slices.Contains(turnHeld[:lossSearch], true) {
		s.turnReachable += share
	}
	if bw {
		s.beforeWindow += share
	}
	if bs {
		s.beforeSearch += share
	}
	if bt {
		s.beforeTurnSearch += share
	}
	if btw || bt {
		s.beforeTurnReachable += share
	}
	if bs || slices.Contains(held[:lossSearch], true) {
		s.msgSearchReachable += share
	} else if bw {
		s.msgSearchLost = true
		s.detail.WithoutSummaryRows = append(s.detail.WithoutSummaryRows, content)
	}
	if bw || bs {
		s.beforeReachable += share
		if !slices.Contains(held[:], true) {
			s.detail.Evidence = append(s.detail.Evidence, content)
		}
	}
}

// lossChance is the containment test's false positives: the evidence of
// each conversation's questions (categories 1–4) tested against the next
// conversation's summary, facts and anchors; the mean share per layer.
func lossChance(convs []locomoConv, layers []lossLayers) map[string]float64 {
	var sum [lossNLayers]float64
	n := 0
	for j, c := range convs {
		other := layers[(j+1)%len(convs)]
		authors := locomoAuthors(c)
		for _, q := range c.questions {
			if q.category < 1 || q.category > 4 || len(q.evidence) == 0 {
				continue
			}
			n++
			for _, idx := range q.evidence {
				e := newLossEvidence(c.msgs[idx].Content, authors)
				for _, l := range lossTextLayers {
					if other.text[l].holds(e) {
						sum[l] += 1 / float64(len(q.evidence))
					}
				}
			}
		}
	}
	out := map[string]float64{}
	for _, l := range lossTextLayers {
		if n > 0 {
			out[lossLayerNames[l]] = sum[l] / float64(n)
		}
	}
	return out
}
