package bench

// What a compacted thread keeps, layer by layer, and where a LoCoMo
// question's evidence is reachable, for yakor bench locomo-loss.

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"yakor"
	"yakor/history"
	"yakor/search"
	"yakor/turn"
	"yakor/words"
)

// lossLayers is what a prompt at the end of a thread holds besides search:
// the window's verbatim messages and the texts of the summary, facts and
// anchors layers.
type lossLayers struct {
	window  map[int64]bool
	firstID int64 // the message a turn searches before (turn.SearchBefore)
	text    [lossNLayers]lossText
}

// lossText is a layer's text as the containment test reads it: its items
// (a summary's or a facts block's lines, an anchor's topic or data
// fragment), each folded, with its numbers.
type lossText struct {
	folded string // all of it
	items  []lossItem
}

type lossItem struct {
	folded  string
	numbers map[string]bool
}

func newLossText(items []string) lossText {
	// A summary item's stamp (the day it was said) is no evidence.
	items = slices.Clone(items)
	for i, it := range items {
		items[i] = history.Undated(it)
	}
	t := lossText{folded: words.Fold(strings.Join(items, "\n"))}
	for _, it := range items {
		li := lossItem{folded: words.Fold(it), numbers: map[string]bool{}}
		for _, n := range lossNumbers(it) {
			li.numbers[n] = true
		}
		t.items = append(t.items, li)
	}
	return t
}

// layers reads the layers of scope's thread as the next turn's prompt
// would, and fills stats with their sizes.
func (p *lossPipeline) layers(ctx context.Context, scope yakor.Scope, stats *lossThreadStats) (lossLayers, error) {
	win, err := p.hist.Window(ctx, scope, p.window, 0)
	if err != nil {
		return lossLayers{}, err
	}
	l := lossLayers{window: map[int64]bool{}}
	lang := "en"
	if len(win) > 0 {
		lang = words.Lang(win[len(win)-1].Content)
	}
	stats.WindowFirst = "none"
	if len(win) > 0 {
		l.firstID, stats.WindowFirst = turn.SearchBefore(win, 0), win[0].Kind
	}
	for _, m := range win {
		if m.Kind != history.KindSummary {
			l.window[m.ID] = true
			stats.WindowMessages++
			stats.WindowChars += m.Chars
		}
	}
	var summary string
	if err := p.db.Owner.QueryRow(ctx, `SELECT count(*), coalesce(sum(chars), 0),
    coalesce((SELECT content FROM messages WHERE tenant_id = $1 AND thread_id = $2 AND kind = 'summary' ORDER BY id DESC LIMIT 1), '')
FROM messages WHERE tenant_id = $1 AND thread_id = $2 AND kind = 'summary'`, scope.TenantID, scope.ThreadID).Scan(&stats.Summaries, &stats.SummaryRowsChars, &summary); err != nil {
		return lossLayers{}, err
	}
	stats.SummaryChars = utf8.RuneCountInString(summary)
	if s, ok := history.ParseSummary(summary); ok {
		stats.SummaryItems = len(s.Resolved) + len(s.Pending)
	}
	facts, ids, err := p.facts.Block(ctx, scope, lang)
	if err != nil {
		return lossLayers{}, err
	}
	visible, err := p.facts.Visible(ctx, scope)
	if err != nil {
		return lossLayers{}, err
	}
	stats.Facts, stats.FactsInBlock, stats.FactsChars = len(visible), len(ids), utf8.RuneCountInString(facts)
	block, n, err := p.anchors.Block(ctx, scope, lang)
	if err != nil {
		return lossLayers{}, err
	}
	stats.Anchors, stats.AnchorsChars = n, utf8.RuneCountInString(block)
	l.text[lossSummary] = newLossText(lossItems(summary))
	l.text[lossFacts] = newLossText(lossItems(facts))
	l.text[lossAnchors] = newLossText(lossAnchorItems(block))
	return l, nil
}

// lossItems returns the item lines ("- …") of a summary or a facts block:
// their headers and section titles are the layer's own words.
func lossItems(text string) []string {
	var out []string
	for line := range strings.Lines(text) {
		if item, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok {
			out = append(out, item)
		}
	}
	return out
}

// lossAnchorWords are the anchors block's own words: its openings, its
// closing brackets and the count of folded topics.
var lossAnchorWords = regexp.MustCompile(`^\[(?:DIALOGUE TOPICS|DATA|ТЕМЫ ДИАЛОГА|ДАННЫЕ): |\]$|…? ?\((?:\d+ earlier topics?|ещё \d+ \p{L}+)\)`)

// lossAnchorItems returns the anchors block's topics and data fragments.
func lossAnchorItems(block string) []string {
	var out []string
	for line := range strings.Lines(block) {
		line = lossAnchorWords.ReplaceAllString(strings.TrimSpace(line), "")
		for _, f := range strings.FieldsFunc(line, func(r rune) bool { return r == '→' || r == ';' }) {
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, f)
			}
		}
	}
	return out
}

// lossNumberRe finds numbers, with their inner separators ("15.2",
// "48,000", "7/15").
var lossNumberRe = regexp.MustCompile(`\d+(?:[.,:/]\d+)*`)

// lossNumbers returns the distinctive numbers of s: those of two digits or
// more, thousands separators (",") left out.
func lossNumbers(s string) []string {
	var out []string
	for _, n := range lossNumberRe.FindAllString(s, -1) {
		digits := 0
		for _, r := range n {
			if unicode.IsDigit(r) {
				digits++
			}
		}
		if n = strings.ReplaceAll(n, ",", ""); digits >= 2 && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// lossEvidence is an evidence message as the containment test reads it.
type lossEvidence struct {
	stems   []string
	numbers []string
}

func newLossEvidence(text string, authors []string) lossEvidence {
	var e lossEvidence
	for _, k := range words.Keywords(text, authors) {
		e.stems = append(e.stems, k.Stem)
	}
	e.numbers = lossNumbers(text)
	return e
}

// holds reports whether an item of t contains the evidence: one of its
// distinctive numbers is a number of the item, or at least half of its
// keywords' stems (and at least one) start a word of the item.
func (t lossText) holds(e lossEvidence) bool {
	for _, it := range t.items {
		if it.holds(e) {
			return true
		}
	}
	return false
}

func (it lossItem) holds(e lossEvidence) bool {
	for _, n := range e.numbers {
		if it.numbers[n] {
			return true
		}
	}
	if len(e.stems) == 0 {
		return false
	}
	hit := 0
	for _, st := range e.stems {
		if lossWordStart(it.folded, st) {
			hit++
		}
	}
	return 2*hit >= len(e.stems)
}

// lossWordStart reports whether stem occurs in folded at the start of a
// word.
func lossWordStart(folded, stem string) bool {
	for off := 0; ; {
		i := strings.Index(folded[off:], stem)
		if i < 0 {
			return false
		}
		i += off
		r, _ := utf8.DecodeLastRuneInString(folded[:i])
		if i == 0 || !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return true
		}
		off = i + len(stem)
	}
}

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
// would: the whole thread, or (beforeID > 0) only before the window.
func (p *lossPipeline) search(ctx context.Context, scope yakor.Scope, question string, beforeID int64) (lossFound, error) {
	res, err := p.searcher.Search(ctx, scope, question, search.Options{Budget: p.budget, BeforeID: beforeID})
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

// conversation measures one conversation: imported whole into a thread
// without the pipeline (before compaction), and grown with it (after).
func (p *lossPipeline) conversation(ctx context.Context, scope yakor.Scope, c locomoConv) ([]lossScore, lossLayers, lossThreadStats, error) {
	stats := lossThreadStats{ID: c.id, Messages: len(c.msgs)}
	start := time.Now()
	before, err := locomoLoad(ctx, p.db, p.hist, scope, c)
	if err != nil {
		return nil, lossLayers{}, stats, err
	}
	stats.LoadSeconds = time.Since(start).Seconds()
	start = time.Now()
	after, ids, err := p.grow(ctx, scope, "locomo-loss "+c.id, c.msgs)
	if err != nil {
		return nil, lossLayers{}, stats, err
	}
	stats.PipelineSeconds = time.Since(start).Seconds()
	start = time.Now()
	layers, err := p.layers(ctx, after, &stats)
	if err != nil {
		return nil, lossLayers{}, stats, err
	}
	win, err := p.hist.Window(ctx, before.scope, p.window, 0)
	if err != nil {
		return nil, lossLayers{}, stats, err
	}
	inBefore, firstBefore := map[int64]bool{}, int64(0)
	for _, m := range win {
		inBefore[m.ID] = true
	}
	if len(win) > 0 {
		firstBefore = win[0].ID
	}
	authors := locomoAuthors(c)
	var scores []lossScore
	var measured, reachBefore, reachAfter float64
	for _, q := range c.questions {
		if q.category < 1 || q.category > 4 {
			continue
		}
		s := lossScore{category: q.category, leftOut: len(q.evidence) == 0}
		if s.leftOut {
			scores = append(scores, s)
			continue
		}
		var found [4]lossFound // before: whole, turn's; after: whole, turn's
		for i, r := range []struct {
			scope    yakor.Scope
			beforeID int64
		}{{before.scope, 0}, {before.scope, firstBefore}, {after, 0}, {after, layers.firstID}} {
			if found[i], err = p.search(ctx, r.scope, q.text, r.beforeID); err != nil {
				return nil, lossLayers{}, stats, err
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
			held[lossWindow] = layers.window[ids[idx]]
			e := newLossEvidence(c.msgs[idx].Content, authors)
			for _, l := range lossTextLayers {
				held[l] = layers.text[l].holds(e)
			}
			held[lossSearch] = found[2].ids[ids[idx]]
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
			turn := found[3].ids[ids[idx]]
			if turn {
				s.turnSearch += share
			}
			if turn || slices.Contains(held[:lossSearch], true) {
				s.turnReachable += share
			}
			bw, bs, bt := inBefore[before.ids[idx]], found[0].ids[before.ids[idx]], found[1].ids[before.ids[idx]]
			if bw {
				s.beforeWindow += share
			}
			if bs {
				s.beforeSearch += share
			}
			if bt {
				s.beforeTurnSearch += share
			}
			if bw || bt {
				s.beforeTurnReachable += share
			}
			if bs || slices.Contains(held[:lossSearch], true) {
				s.msgSearchReachable += share
			} else if bw {
				s.msgSearchLost = true
				s.detail.WithoutSummaryRows = append(s.detail.WithoutSummaryRows, c.msgs[idx].Content)
			}
			if bw || bs {
				s.beforeReachable += share
				if !slices.Contains(held[:], true) {
					s.detail.Evidence = append(s.detail.Evidence, c.msgs[idx].Content)
				}
			}
		}
		s.lost = len(s.detail.Evidence) > 0
		if s.lost || s.msgSearchLost {
			s.detail.Conversation, s.detail.Category, s.detail.Question = c.id, q.category, q.text
		}
		measured++
		reachBefore += s.beforeReachable
		reachAfter += s.reachable
		scores = append(scores, s)
	}
	stats.MeasureSeconds = time.Since(start).Seconds()
	if measured > 0 {
		stats.ReachableBefore, stats.ReachableAfter = reachBefore/measured, reachAfter/measured
	}
	return scores, layers, stats, nil
}

// locomoAuthors are a conversation's speakers.
func locomoAuthors(c locomoConv) []string {
	var authors []string
	for _, m := range c.msgs {
		if m.Author != "" && !slices.Contains(authors, m.Author) {
			authors = append(authors, m.Author)
		}
	}
	return authors
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

// lossProbeSet are the facts planted early in the probe thread, each with
// the value a layer must hold for it to count, and a question about it.
var lossProbeSet = []struct{ name, message, value, question string }{
	{"version", "We use PostgreSQL 15.2 for storage.", "PostgreSQL 15.2", "Which PostgreSQL version do we use for storage?"},
	{"budget", "Our budget is 48,000 EUR.", "48,000", "What is our budget?"},
	{"name", "My name is Anna Petrova.", "Anna Petrova", "What is my name?"},
}
