package turn

import (
	"unicode/utf8"

	"yakor/history"
	"yakor/llm"
	"yakor/search"
)

// The whole-prompt budget (Config.PromptChars): every layer keeps its own
// budget, and the prompt as a whole, with what its searches find, keeps
// this one. The window gives way, oldest messages first; its summary, the
// facts, the anchors, the memory and the user's message stay.

// minHits is the least a search may find, in characters, when the prompt
// leaves it little: the window gives way for it.
const minHits = 2000

// searchShare is the most of the prompt, in fifths, that a search may
// take. LoCoMo as a turn (bin/yakor bench locomo-loss), with hits framed
// by the minute and up to 120 of them: half 91.8%, three fifths 92.4%.
const searchShare = 3

// minWindow is the least of the window's newest messages, in characters,
// that stays when it gives way for a search: the exchange the user is in
// (what "the second one" or "that price" refers to) keeps its context.
// A newest message longer than that stays whole.
const minWindow = 2000

// fit drops the window's oldest messages (never its summary row, nor its
// newest minWindow characters) until the prompt with room more characters
// fits in the prompt budget, and assembles the prompt again when it
// dropped any.
func (t *turnRun) fit(room int) {
	over := t.prompt.TotalChars() + room - t.e.cfg.PromptChars
	if over <= 0 {
		return
	}
	left := 0 // the window's messages' characters not yet dropped
	for _, m := range t.parts.window {
		if m.Kind != history.KindSummary {
			left += m.Chars
		}
	}
	keep := make([]history.Message, 0, len(t.parts.window))
	for _, m := range t.parts.window {
		if m.Kind != history.KindSummary && left-m.Chars < minWindow {
			over = 0 // the newest stay whole: none after this one goes
		}
		if over > 0 && m.Kind != history.KindSummary {
			over -= m.Chars
			left -= m.Chars
			continue
		}
		keep = append(keep, m)
	}
	if len(keep) == len(t.parts.window) {
		return
	}
	t.parts.window, t.window = keep, keep
	t.prompt = assemble(t.parts)
	t.tr.Layers, t.tr.PromptChars = t.prompt.Layers, t.prompt.TotalChars()
}

// room is how many characters of hits the next search may find: its
// budget, or what the prompt budget leaves after the prompt and extra
// (what the passes added), when the window cannot give way for more.
func (t *turnRun) room(extra []llm.Message) int {
	cfg := t.e.cfg
	added := chars(extra)
	want := min(cfg.SearchBudget, max(minHits, cfg.PromptChars*searchShare/5))
	t.fit(added + want)
	return max(1, min(cfg.SearchBudget, cfg.PromptChars-t.prompt.TotalChars()-added))
}

// fitHits keeps the best of hits (search's rank order: the last go first)
// whose block, as format renders them with their framing, fits in room
// characters, and returns them with their block. The window already gave
// way for room and the search looked only before it: were the window to
// give way again for the framing, the messages it dropped would be in
// neither. At least one hit stays. The longest fitting run of the best is
// found by halving (a block grows with its hits): a few renderings, not
// one per hit left out.
func fitHits(hits []search.Hit, room int, format func([]search.Hit) string) ([]search.Hit, string) {
	block := format(hits)
	if len(hits) <= 1 || utf8.RuneCountInString(block) <= room {
		return hits, block
	}
	// The first n hits fit for n < hi only; n = 1 stays whatever its size.
	lo, hi := 1, len(hits)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if utf8.RuneCountInString(format(hits[:mid])) <= room {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hits[:lo], format(hits[:lo])
}

// hitChars is the characters of hits' contents.
func hitChars(hits []search.Hit) int {
	n := 0
	for _, h := range hits {
		n += utf8.RuneCountInString(h.Content)
	}
	return n
}

// chars is the characters of msgs' texts.
func chars(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += utf8.RuneCountInString(m.Content)
	}
	return n
}
