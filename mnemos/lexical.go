package mnemos

// Recall's lexical leg: the experiences holding the message's keywords,
// weighed by how rare each keyword is among the level's entries.

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"yakor"

	"github.com/jackc/pgx/v5"

	"yakor/search"
	"yakor/words"
)

// lexicalCap is the most entries of a level one keyword hands the lexical
// leg: a word that common weighs little, and the heap reads of its
// postings stop there. The entries recall ranks are scored on their whole
// text (weigher.score), so an entry outside a common word's share still
// counts the word.
const lexicalCap = 50

// lexicalSQL returns, for each stem ($5; "" is skipped), up to $6 of the
// tenant's ($1) entries of one level ($2) in the space ($3) that the user
// ($4) may recall, its own or shared, and that hold a word starting with
// the stem: the stem's position (from 1) and the entry's id.
// yakor_experience_words reads the words index (migration 00021) as the
// tables' owner, for the tenant the transaction names and the entries the
// user may recall; it returns only ids, and recall reads the entries
// themselves under the caller's row-level security (entriesSQL). It is
// called on its own, never joined: on Citus a join with experiences would
// run it inside the shard's query on a worker, where its own query could
// not run.
const lexicalSQL = `SELECT w.kw, w.entry FROM yakor_experience_words($1, $2, $3, $4, $5, $6) w`

// found is what the lexical leg found in one level: the keywords each
// entry holds (indexes into the message's keywords; a common keyword's only
// for its first lexicalCap entries), and how many entries hold each keyword
// (counted up to lexicalCap).
type found struct {
	kws map[int64][]int
	df  []int
}

// readFound collects a lexicalSQL result for keywords keywords.
func readFound(rows pgx.Rows, keywords int) (found, error) {
	f := found{kws: map[int64][]int{}, df: make([]int, keywords)}
	var kw int32
	var id int64
	_, err := pgx.ForEachRow(rows, []any{&kw, &id}, func() error {
		f.kws[id] = append(f.kws[id], int(kw-1))
		f.df[kw-1]++
		return nil
	})
	return f, err
}

// commonStems remembers, for each viewer (a tenant's user, whose own
// entries beside the shared ones a read counts), level and space, the stems a
// lexical read found in lexicalCap entries or more: for commonFor, later
// recalls do not read their postings again (every one of them, however
// many: a word in a tenth of 100,000 examples costs milliseconds), and weigh
// them as common. At most commonMax are remembered; past that, all are
// forgotten.
type commonStems struct {
	seen sync.Map // commonKey → when it was found common
	n    atomic.Int64
}

const (
	commonFor = 10 * time.Minute
	commonMax = 100_000
)

func commonKey(viewer yakor.Scope, level int, space int32, stem string) string {
	return fmt.Sprintf("%s:%s:%d:%d:%s", viewer.TenantID, viewer.UserID, level, space, stem)
}

// toRead returns stems with the ones known to be common at the level
// blanked: lexicalSQL skips them.
func (c *commonStems) toRead(viewer yakor.Scope, level int, space int32, stems []string) []string {
	out := slices.Clone(stems)
	for i, stem := range stems {
		if at, ok := c.seen.Load(commonKey(viewer, level, space, stem)); ok && time.Since(at.(time.Time)) < commonFor {
			out[i] = ""
		}
	}
	return out
}

// learn remembers the stems read (read: toRead's result) that found
// lexicalCap entries, and counts the ones not read as common in f.
func (c *commonStems) learn(viewer yakor.Scope, level int, space int32, read []string, f *found) {
	for i, stem := range read {
		switch {
		case stem == "":
			f.df[i] = lexicalCap
		case f.df[i] >= lexicalCap:
			if _, again := c.seen.Swap(commonKey(viewer, level, space, stem), time.Now()); !again && c.n.Add(1) > commonMax {
				c.seen.Clear()
				c.n.Store(0)
			}
		}
	}
}

// weigher scores entries by the message's keywords (their stems) in one
// level of n entries: each keyword weighs search.IDF(n, its count), and an
// entry's score is the share of the keywords' whole weight its own
// keywords carry. A keyword no entry holds weighs as one that a single
// entry holds: how rare a word memory has never seen is unknown, and
// weighing it more would let every such word of a long message outweigh
// the ones memory knows.
type weigher struct {
	stems  []string
	f      found
	weight []float64
	total  float64
}

func newWeigher(stems []string, f found, n int) weigher {
	w := weigher{stems: stems, f: f, weight: make([]float64, len(f.df))}
	for i, df := range f.df {
		w.weight[i] = search.IDF(float64(n), float64(max(df, 1)))
		w.total += w.weight[i]
	}
	return w
}

// ranked returns the entries found, those whose keywords found weigh the
// most first (ties: the newer), at most k: the lexical leg's candidates.
func (w weigher) ranked(k int) []int64 {
	type entry struct {
		id    int64
		score float64
	}
	es := make([]entry, 0, len(w.f.kws))
	for id, kws := range w.f.kws {
		e := entry{id: id}
		for _, i := range kws {
			e.score += w.weight[i]
		}
		es = append(es, e)
	}
	slices.SortFunc(es, func(a, b entry) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(b.id, a.id))
	})
	out := make([]int64, 0, min(k, len(es)))
	for _, e := range es[:min(k, len(es))] {
		out = append(out, e.id)
	}
	return out
}

// lexicalScore is an entry's lexical score, with how many of the message's
// keywords it holds, and how many of those its subject holds (a note's
// theme and title, an example's question).
type lexicalScore struct {
	score         float64
	matched, head int
}

// score reads the keywords x holds in its text, each a word starting with
// its stem, as lexicalSQL finds them.
func (w weigher) score(x Experience) lexicalScore {
	if w.total == 0 {
		return lexicalScore{}
	}
	var s lexicalScore
	head, body := words.Fields(x.Topic+"\n"+x.Question), words.Fields(x.Answer)
	for i, stem := range w.stems {
		inHead := startsAny(head, stem)
		if inHead || startsAny(body, stem) {
			s.score += w.weight[i] / w.total
			s.matched++
		}
		if inHead {
			s.head++
		}
	}
	return s
}

// startsAny reports whether one of the folded words starts with stem.
func startsAny(fields []string, stem string) bool {
	return slices.ContainsFunc(fields, func(f string) bool { return strings.HasPrefix(f, stem) })
}

// recalled reports whether the lexical leg recalls an entry of score l: the
// score must reach min, from two keywords at least (one word is too little
// evidence: "спасибо" or "python" would call up whatever holds it), one of
// them in the entry's subject (a note that mentions "услуги" among many
// others is not about "Какие услуги оказывает МФЦ?").
func (l lexicalScore) recalled(min float64) bool {
	return l.score >= min && l.matched >= 2 && l.head >= 1
}

// stemsOf returns the stems of the message's keywords (words.Keywords) for
// the lexical leg, none when it is off.
func stemsOf(message string, off bool) []string {
	if off {
		return nil
	}
	return search.Stems(words.Keywords(message, nil))
}
