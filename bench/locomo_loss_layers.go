package bench

// What a compacted thread keeps, layer by layer, and where a LoCoMo
// question's evidence is reachable, for yakor bench locomo-loss.

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"yakor"
	"yakor/history"
	"yakor/words"
)

// lossLayers is what a prompt at the end of a thread holds besides search:
// the window's verbatim messages and the texts of the summary, facts and
// anchors layers.
type lossLayers struct {
	window map[int64]bool
	text   [lossNLayers]lossText
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
		stats.WindowFirst = win[0].Kind
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

// lossEpisodeDays matches the days an episode's phrase ends with ("(8–12
// May 2023)"): the block's own words, no evidence.
var lossEpisodeDays = regexp.MustCompile(` \([^()]*\d{4}\)$`)

// lossAnchorItems returns the anchors block's topics and data fragments.
func lossAnchorItems(block string) []string {
	var out []string
	for line := range strings.Lines(block) {
		line = lossAnchorWords.ReplaceAllString(strings.TrimSpace(line), "")
		for _, f := range strings.FieldsFunc(line, func(r rune) bool { return r == '→' || r == ';' }) {
			if f = lossEpisodeDays.ReplaceAllString(strings.TrimSpace(f), ""); f != "" {
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

// lossProbeSet are the facts planted early in the probe thread, each with
// the value a layer must hold for it to count, and a question about it.
var lossProbeSet = []struct{ name, message, value, question string }{
	{"version", "We use PostgreSQL 15.2 for storage.", "PostgreSQL 15.2", "Which PostgreSQL version do we use for storage?"},
	{"budget", "Our budget is 48,000 EUR.", "48,000", "What is our budget?"},
	{"name", "My name is Anna Petrova.", "Anna Petrova", "What is my name?"},
}
