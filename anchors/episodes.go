package anchors

import (
	"cmp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// This file folds a thread's older anchors into episodes, so that the
// anchors block maps the whole conversation at every length: the newest
// anchors stay whole, a run of older ones becomes one episode (an anchor
// row marked Episode: a phrase of their topics, their condensed data and
// the days they span), and when there are too many episodes the two
// adjacent ones that cover the fewest anchors become one. Nothing is
// deleted: a folded anchor is merged into its episode (Absorbed).

// Defaults of Config's folding.
const (
	DefaultKeepRecent  = 8  // anchors kept whole, the current one among them
	DefaultMaxEpisodes = 12 // episodes at most
)

// episodeGroup is how many of the oldest anchors fold into one episode at
// a time.
const episodeGroup = 4

// Sizes of an episode, in runes.
const (
	EpisodeTopicMax = 60  // its phrase
	EpisodeDataMax  = 300 // its data
)

// episodeSep joins the topics of an episode's phrase.
const episodeSep = ", "

// foldOp is one fold the batch writes: target becomes (or stays) an
// episode with this phrase, data and span, and members are merged into it.
type foldOp struct {
	target          int64
	members         []int64 // merged into target
	absorbed        []int64 // added to target's Absorbed: the members and what they had absorbed
	topic, data     string
	firstAt, lastAt time.Time
}

// foldOld folds the run's oldest anchors into episodes while more than
// the configured number stay whole, then joins episodes while there are
// too many. The current anchor is never folded.
func (r *run) foldOld() error {
	for {
		plain := r.byPosition(func(a Anchor) bool { return !a.Episode })
		if len(plain) < r.cfg.KeepRecent+episodeGroup {
			break
		}
		var group []int64
		for _, a := range plain {
			if a.ID != r.currentID && len(group) < episodeGroup {
				group = append(group, a.ID)
			}
		}
		if err := r.fold(group[0], group[1:]); err != nil {
			return err
		}
	}
	for {
		eps := r.byPosition(func(a Anchor) bool { return a.Episode })
		if len(eps) <= r.cfg.MaxEpisodes {
			return nil
		}
		best := 0
		for i := 1; i+1 < len(eps); i++ {
			if size(eps[i])+size(eps[i+1]) < size(eps[best])+size(eps[best+1]) {
				best = i
			}
		}
		if err := r.fold(eps[best].ID, []int64{eps[best+1].ID}); err != nil {
			return err
		}
	}
}

// size is how many anchors an episode covers.
func size(a Anchor) int { return 1 + len(a.Absorbed) }

// byPosition returns the run's anchors that keep holds, in the
// conversation's order.
func (r *run) byPosition(keep func(Anchor) bool) []Anchor {
	var out []Anchor
	for _, a := range r.anchors {
		if keep(a) {
			out = append(out, a)
		}
	}
	slices.SortStableFunc(out, func(a, b Anchor) int {
		return cmp.Or(cmp.Compare(a.CharPos, b.CharPos), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// fold merges the anchors members into target, which becomes an episode.
func (r *run) fold(target int64, members []int64) error {
	all := append([]int64{target}, members...)
	parts := make([]Anchor, 0, len(all))
	for _, id := range all {
		a := find(r.anchors, id)
		if !r.loaded[id] {
			data, err := r.dataOf(id)
			if err != nil {
				return err
			}
			a.Data, r.loaded[id] = data, true
		}
		r.remember(*a)
		parts = append(parts, *a)
	}
	ep := episodeOf(parts)
	for _, id := range members {
		r.anchors = remove(r.anchors, id)
	}
	t := find(r.anchors, target)
	t.Episode, t.Topic, t.Data, t.FirstAt, t.LastAt = true, ep.Topic, ep.Data, ep.FirstAt, ep.LastAt
	absorbed := slices.Clone(members)
	for _, p := range parts[1:] {
		absorbed = append(absorbed, p.Absorbed...)
	}
	t.Absorbed = append(t.Absorbed, absorbed...)
	r.folds = append(r.folds, foldOp{target: target, members: members, absorbed: absorbed,
		topic: ep.Topic, data: ep.Data, firstAt: ep.FirstAt, lastAt: ep.LastAt})
	return nil
}

// episodeOf is the episode of parts, oldest first: a phrase of their
// topics (see episodePhrase), their data condensed to EpisodeDataMax (see
// episodeData), and the days from the first to the last.
func episodeOf(parts []Anchor) Anchor {
	var topics []string
	var frags [][]string
	var ep Anchor
	for _, p := range parts {
		topics = append(topics, episodeTopics(p)...)
		frags = append(frags, splitFragments(p.Data))
		if !p.FirstAt.IsZero() && (ep.FirstAt.IsZero() || p.FirstAt.Before(ep.FirstAt)) {
			ep.FirstAt = p.FirstAt
		}
		ep.LastAt = later2(ep.LastAt, later2(p.FirstAt, p.LastAt))
	}
	ep.Topic = episodePhrase(topics, EpisodeTopicMax)
	ep.Data = episodeData(frags, EpisodeDataMax)
	return ep
}

// episodeData condenses the fragments of an episode's parts (oldest part
// first, each part's fragments oldest first) to at most max runes: each
// part's newest fragment first, then each one's next newest, and so on,
// so that every part keeps something; a repeated fragment once. They are
// joined in the conversation's order.
func episodeData(parts [][]string, max int) string {
	type pick struct{ part, idx int }
	var picked []pick
	seen := map[string]bool{}
	n := 0
	for depth := 1; ; depth++ {
		more := false
		for p, frags := range parts {
			i := len(frags) - depth
			if i < 0 {
				continue
			}
			more = true
			f := frags[i]
			l := utf8.RuneCountInString(f)
			if n > 0 {
				l += utf8.RuneCountInString(fragmentSep)
			}
			if seen[normalize(f)] || n+l > max {
				continue
			}
			seen[normalize(f)] = true
			picked, n = append(picked, pick{p, i}), n+l
		}
		if !more {
			break
		}
	}
	slices.SortFunc(picked, func(a, b pick) int { return cmp.Or(cmp.Compare(a.part, b.part), cmp.Compare(a.idx, b.idx)) })
	out := make([]string, len(picked))
	for i, p := range picked {
		out[i] = parts[p.part][p.idx]
	}
	return strings.Join(out, fragmentSep)
}

func later2(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// episodeTopics are the topics an anchor stands for: an episode's phrase
// split back into its topics, or the anchor's topic.
func episodeTopics(a Anchor) []string {
	if a.Episode {
		return strings.Split(a.Topic, episodeSep)
	}
	return []string{strings.TrimSpace(strings.ReplaceAll(a.Topic, episodeSep, " "))}
}

// episodePhrase joins topics, oldest first, into a phrase of at most max
// runes: a topic much like one kept (words.Similarity 0.5) is left out,
// and when they do not all fit, the topics of more words (the more
// telling ones) are kept first, then the older; they stay in the
// conversation's order.
func episodePhrase(topics []string, max int) string {
	type cand struct {
		text  string
		order int
		words int
	}
	var cands []cand
	for i, t := range topics {
		t = strings.TrimSpace(t)
		if t == "" || t == "…" || t == "—" {
			continue
		}
		dup := slices.ContainsFunc(cands, func(c cand) bool { return strings.EqualFold(c.text, t) || similarTopics(c.text, t) })
		if !dup {
			cands = append(cands, cand{text: t, order: i, words: len(strings.Fields(t))})
		}
	}
	byWorth := slices.Clone(cands)
	slices.SortStableFunc(byWorth, func(a, b cand) int { return cmp.Compare(min(b.words, 3), min(a.words, 3)) })
	var kept []cand
	n := 0
	for _, c := range byWorth {
		l := utf8.RuneCountInString(c.text)
		if len(kept) > 0 {
			l += utf8.RuneCountInString(episodeSep)
		}
		if n+l <= max {
			kept, n = append(kept, c), n+l
		}
	}
	if len(kept) == 0 && len(cands) > 0 {
		return firstRunes(cands[0].text, max-1) + ellipsis
	}
	slices.SortFunc(kept, func(a, b cand) int { return cmp.Compare(a.order, b.order) })
	out := make([]string, len(kept))
	for i, c := range kept {
		out[i] = c.text
	}
	return strings.Join(out, episodeSep)
}

// monthsRU are the Russian month names in the genitive ("8 мая").
var monthsRU = [12]string{"января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября", "октября", "ноября", "декабря"}

// daySpan writes the days from first to last (UTC) in lang: "8 May 2023",
// "8–12 May 2023", "28 May – 2 Jun 2023", "8 мая – 2 июня 2023"; "" when
// first is unknown.
func daySpan(first, last time.Time, lang string) string {
	if first.IsZero() {
		return ""
	}
	first, last = first.UTC(), last.UTC()
	if last.Before(first) {
		last = first
	}
	month := func(t time.Time) string {
		if lang == "ru" {
			return monthsRU[t.Month()-1]
		}
		return t.Format("Jan")
	}
	day := func(t time.Time) string { return t.Format("2") + " " + month(t) }
	year := func(t time.Time) string { return t.Format("2006") }
	switch {
	case first.YearDay() == last.YearDay() && first.Year() == last.Year():
		return day(first) + " " + year(first)
	case first.Month() == last.Month() && first.Year() == last.Year():
		return first.Format("2") + "–" + day(last) + " " + year(last)
	case first.Year() == last.Year():
		return day(first) + " – " + day(last) + " " + year(last)
	}
	return day(first) + " " + year(first) + " – " + day(last) + " " + year(last)
}
