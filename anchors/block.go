package anchors

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"yakor/fence"
)

// DefaultBlockBudget is the budget of Block when none is given.
const DefaultBlockBudget = 4000

// Separators of the anchors block.
const (
	topicArrow = " → "
	ellipsis   = "…"
)

// minTopicRunes is the shortest cut of the current topic worth showing next
// to the count of earlier topics.
const minTopicRunes = 8

// blockWords are the fixed words of the block in one language.
type blockWords struct {
	topics, data string           // openings of the two lines
	earlier      func(int) string // the fold of n oldest topics
}

func wordsFor(lang string) blockWords {
	if lang == "ru" {
		return blockWords{topics: "[ТЕМЫ ДИАЛОГА: ", data: "[ДАННЫЕ: ", earlier: earlierRU}
	}
	return blockWords{topics: "[DIALOGUE TOPICS: ", data: "[DATA: ", earlier: earlierEN}
}

func earlierEN(n int) string {
	if n == 1 {
		return ellipsis + " (1 earlier topic)"
	}
	return fmt.Sprintf("%s (%d earlier topics)", ellipsis, n)
}

func earlierRU(n int) string {
	word := "тем"
	switch {
	case n%10 == 1 && n%100 != 11:
		word = "тема"
	case n%10 >= 2 && n%10 <= 4 && (n%100 < 12 || n%100 > 14):
		word = "темы"
	}
	return fmt.Sprintf("%s (ещё %d %s)", ellipsis, n, word)
}

// blockItem is one anchor as the block shows it.
type blockItem struct {
	topic    string
	data     string
	topicLen int
	dataLen  int
	frags    []string // its data's fragments, whole
	current  bool
	episode  bool // folds older anchors (episodes.go)
	noData   bool // its data is folded away
	hidden   bool // its topic is folded into the "earlier topics" count
}

// blockLayout is the block being fitted into its budget.
type blockLayout struct {
	words  blockWords
	items  []blockItem
	hidden int
}

// Block renders the anchors block of a prompt in lang ("ru", else
// English), oldest anchor (by CharPos, then ID) first:
//
//	[DIALOGUE TOPICS: price list → cost calculation → conversion to USD]
//	[DATA: price list: …; cost calculation: …]
//
//	[ТЕМЫ ДИАЛОГА: прайс → расчёт стоимости → перевод в доллары]
//	[ДАННЫЕ: прайс: …; расчёт стоимости: …]
//
// Each anchor's data is prefixed by its topic (an anchor without a topic
// shows "—"); the DATA line is left out when no anchor shown has data. The
// block never exceeds budget runes (budget <= 0 means 4000). When it is too
// long, the anchors share the data's room: each shows its fragments with a
// figure or a date first, then its newest, within the same share (the
// current one at least currentShare). When not even that fits, the OLDEST
// anchors fold first: their data is dropped, one anchor at a time, then
// their topics collapse into "… (N earlier topics)" /
// "… (ещё N тем)", which stands where the folded topics began: the whole
// anchors' topics first, then the episodes' (an episode shows the days it
// spans after its phrase, "(8–12 May 2023)"). The current
// anchor (currentID; the newest anchor when no anchor has that id) is never
// folded: when it alone does not fit, its data is cut to fit, keeping its
// newest part after a "…"; when its topic alone does not fit either, its
// data is left out, then the count when little room is left, and the
// topic is cut ("…" at its end).
// No anchors, or a budget too small for even that, give "".
func Block(anchors []Anchor, currentID int64, lang string, budget int) string {
	return BlockOmitting(anchors, 0, currentID, lang, budget)
}

// BlockOmitting is Block for the newest anchors of a thread whose omitted
// older anchors were not loaded: they count among the folded topics.
func BlockOmitting(anchors []Anchor, omitted int, currentID int64, lang string, budget int) string {
	if len(anchors) == 0 {
		return ""
	}
	if budget <= 0 {
		budget = DefaultBlockBudget
	}
	l := newBlockLayout(anchors, omitted, currentID, lang)
	if l.fold(budget) {
		return l.render()
	}
	return l.cutCurrent(budget)
}

// newBlockLayout lays the anchors out in the conversation's order, the
// current one marked (the newest when currentID is none of them), after a
// count of the omitted older ones.
func newBlockLayout(anchors []Anchor, omitted int, currentID int64, lang string) *blockLayout {
	sorted := slices.Clone(anchors)
	slices.SortStableFunc(sorted, func(a, b Anchor) int {
		return cmp.Or(cmp.Compare(a.CharPos, b.CharPos), cmp.Compare(a.ID, b.ID))
	})
	cur := slices.IndexFunc(sorted, func(a Anchor) bool { return a.ID == currentID })
	if cur < 0 {
		cur = len(sorted) - 1
	}
	l := &blockLayout{words: wordsFor(lang), items: make([]blockItem, len(sorted))}
	for i, a := range sorted {
		topic := fence.Inline(a.Topic)
		if topic == "" {
			topic = "—"
		}
		if span := daySpan(a.FirstAt, a.LastAt, lang); a.Episode && span != "" {
			topic += " (" + span + ")"
		}
		frags := splitFragments(a.Data)
		for j, f := range frags {
			frags[j] = fence.Inline(f)
		}
		data := strings.Join(frags, fragmentSep)
		l.items[i] = blockItem{
			topic: topic, data: data, frags: frags, topicLen: runeLen(topic), dataLen: runeLen(data),
			current: i == cur, episode: a.Episode,
		}
	}
	if omitted > 0 {
		l.items = append([]blockItem{{hidden: true}}, l.items...)
		l.hidden = omitted
	}
	return l
}

// fold makes the block fit budget by sharing the data's room among the
// anchors (share), else by leaving out the oldest anchors' data, then
// their topics (counted instead), the current anchor aside; it reports
// whether that was enough.
func (l *blockLayout) fold(budget int) bool {
	if l.size() <= budget || l.share(budget) {
		return true
	}
	for i := range l.items {
		if it := &l.items[i]; !it.current && it.dataLen > 0 {
			it.noData = true
			if l.size() <= budget {
				return true
			}
		}
	}
	// The whole anchors' topics fold before the episodes', which keep the
	// map of the conversation.
	for _, episodes := range []bool{false, true} {
		for i := range l.items {
			if it := &l.items[i]; !it.current && !it.hidden && it.episode == episodes {
				it.hidden = true
				l.hidden++
				if l.size() <= budget {
					return true
				}
			}
		}
	}
	return false
}

// currentShare is the data the current anchor keeps when the block's data
// is shared (share), when it has that much.
const currentShare = 600

// share fits the block into budget by giving every anchor's data the same
// room, its newest whole fragments within it (the current anchor at least
// currentShare), as much room as fits; it reports whether some room does
// (else the data is as it was).
func (l *blockLayout) share(budget int) bool {
	set := func(room int) {
		for i := range l.items {
			it := &l.items[i]
			r := room
			if it.current {
				r = max(room, currentShare)
			}
			it.data = fitWhole(it.frags, r)
			it.dataLen = runeLen(it.data)
		}
	}
	lo, hi := 0, MaxData // the largest room that fits is in [lo, hi)
	set(lo)
	if l.size() > budget {
		set(MaxData)
		return false
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if set(mid); l.size() <= budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	set(lo)
	return true
}

// fitWhole returns the fragments of frags, whole, that fit in max runes
// joined, in their order: those that carry a figure or a date first
// (what people come back for), each kind newest first.
func fitWhole(frags []string, max int) string {
	keep := make([]bool, len(frags))
	n := 0
	for _, dated := range []bool{true, false} {
		for i := len(frags) - 1; i >= 0; i-- {
			if keep[i] || hasFigure(frags[i]) != dated {
				continue
			}
			l := runeLen(frags[i])
			if n > 0 {
				l += runeLen(fragmentSep)
			}
			if n+l <= max {
				keep[i], n = true, n+l
			}
		}
	}
	var out []string
	for i, f := range frags {
		if keep[i] {
			out = append(out, f)
		}
	}
	return strings.Join(out, fragmentSep)
}

// hasFigure reports whether a fragment holds a digit: a figure, or the
// day a note was said.
func hasFigure(f string) bool { return strings.ContainsFunc(f, unicode.IsDigit) }

// cutCurrent renders a block of only the current anchor within budget: its
// data cut, then its topic (and the others' count dropped when that
// leaves a readable topic); "" when not even that fits.
func (l *blockLayout) cutCurrent(budget int) string {
	it := &l.items[slices.IndexFunc(l.items, func(it blockItem) bool { return it.current })]
	it.noData = true
	withoutData := l.size()
	if it.dataLen > 0 {
		// The data line of one anchor: "\n" + opening + "topic: " + data + "]".
		room := budget - withoutData - (1 + runeLen(l.words.data) + it.topicLen + 2 + 1)
		if room >= 2 {
			it.data, it.noData = cutTail(it.data, room), false
			it.dataLen = runeLen(it.data)
			return l.render()
		}
	}
	if withoutData <= budget {
		return l.render()
	}
	room := it.topicLen - (withoutData - budget)
	if room < minTopicRunes && l.hidden > 0 {
		l.hidden = 0 // better the current topic than the count of the others
		if l.size() <= budget {
			return l.render()
		}
		room = it.topicLen - (l.size() - budget)
	}
	if room < 2 {
		return ""
	}
	it.topic = firstRunes(it.topic, room-1) + ellipsis
	it.topicLen = runeLen(it.topic)
	return l.render()
}

// cutTail returns the newest part of data in at most max runes (max >= 2):
// "…" and the data's end, starting at a word when that wastes little.
func cutTail(data string, max int) string {
	tail := lastRunes(data, max-1)
	if i := strings.IndexByte(tail, ' '); i >= 0 && runeLen(tail[:i]) < 20 && i+1 < len(tail) {
		tail = tail[i+1:]
	}
	return ellipsis + tail
}

// size returns the rune length render would give.
func (l *blockLayout) size() int {
	n := runeLen(l.words.topics) + 1 // opening and "]"
	parts := 0
	if l.hidden > 0 {
		n += runeLen(l.words.earlier(l.hidden))
		parts++
	}
	dataN, dataParts := 0, 0
	for _, it := range l.items {
		if it.hidden {
			continue
		}
		n += it.topicLen
		parts++
		if !it.noData && it.dataLen > 0 {
			dataN += it.topicLen + 2 + it.dataLen
			dataParts++
		}
	}
	if parts > 1 {
		n += (parts - 1) * runeLen(topicArrow)
	}
	if dataParts > 0 {
		n += 1 + runeLen(l.words.data) + dataN + (dataParts-1)*runeLen(fragmentSep) + 1
	}
	return n
}

// render writes the block as laid out.
func (l *blockLayout) render() string {
	var topics, data []string
	labelled := l.hidden == 0
	for _, it := range l.items {
		if it.hidden {
			if !labelled { // the count stands where the folded topics began
				topics = append(topics, l.words.earlier(l.hidden))
				labelled = true
			}
			continue
		}
		topics = append(topics, it.topic)
		if !it.noData && it.dataLen > 0 {
			data = append(data, it.topic+": "+it.data)
		}
	}
	var b strings.Builder
	b.WriteString(l.words.topics)
	b.WriteString(strings.Join(topics, topicArrow))
	b.WriteString("]")
	if len(data) > 0 {
		b.WriteString("\n")
		b.WriteString(l.words.data)
		b.WriteString(strings.Join(data, fragmentSep))
		b.WriteString("]")
	}
	return b.String()
}
