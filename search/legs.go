package search

import (
	"context"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/postgres"
	"yakor/words"
)

// Bounds of the legs' reading.
const (
	// keywordCap bounds how many messages one keyword's leg reads: a word
	// that common carries little evidence anyway.
	keywordCap = 500
	// legTop is how many ranked messages each leg hands to the fusion.
	legTop = 200
	// sampleRows is how many of a big thread's newest messages are read to
	// tell its common keywords from the others.
	sampleRows = 500
	// commonDF is the estimated number of a thread's messages holding a
	// keyword from which the keyword is common: its matches are taken from
	// the sample, not from the index, whose postings for it would cost more
	// to read than the sample (about 15 ms per 100,000 messages). A word
	// that common weighs little.
	commonDF = 2000
)

// sampleSQL returns the newest messages of a thread, each with the
// keywords it has a word starting with (one row per keyword, or one with
// a null keyword): $1 tenant, $2 user, $3 thread, $4 stems, $5 before id
// (0: all), $6 messages.
var sampleSQL = `
SELECT m.id, k.i::int
FROM (
    SELECT id, folded FROM messages
    WHERE tenant_id = $1 AND user_id = $2 AND ` + postgres.OneThread("$3") + `
      AND ($5::bigint = 0 OR id < $5) AND kind <> 'summary' AND superseded_at IS NULL
    ` + postgres.NewestFirst + `
    LIMIT $6
) m
LEFT JOIN unnest($4::text[]) WITH ORDINALITY AS k(s, i)
    ON strpos(m.folded, k.s) > 0 AND m.folded ~ yakor_word_start(k.s)`

// keywordLegSQL returns, for each stem, up to $6 messages with a word
// starting with it, each with its full-text rank for $7 (a websearch
// query): $1 tenant, $2 user, $3 thread, $4 stems, $5 before id (0: all).
// Each stem becomes the prefix query of the thread's words, whose postings
// hold that thread's messages only. The function (migration 00022) reads
// the index as the tables' owner: under row-level security the planner may
// not use it for the text search operator.
const keywordLegSQL = `SELECT kw, id, rank FROM yakor_thread_word_matches($1, $2, $3, $4, $5, $6, $7)`

type scored struct {
	id    int64
	score float64
}

// legs finds a thread's candidates and ranks them by both legs: the
// keywords' weights and the full-text rank. In a thread big enough to have
// them, the newest messages are read first (sampleSQL) to find the keywords
// common in the thread (commonDF): their matches come from that sample, and
// their words stay out of the full-text rank, where they would only outrank
// the rare words' matches with their own. The other keywords go through the
// thread's words index (keywordLegSQL), at most keywordCap messages each.
// The related words count in the keyword leg only: in the full-text rank
// they found less (84.7% of LoCoMo's evidence, not 87.1%).
func (s *Searcher) legs(ctx context.Context, scope yakor.Scope, t terms, count int64, beforeID int64) (byKeyword, byText []scored, err error) {
	kws := t.kws
	f := newFound(t)
	rare, err := sample(ctx, s.db, scope, kws, count, beforeID, f)
	if err != nil {
		return nil, nil, err
	}
	if len(rare) > 0 {
		rows, err := s.db.Query(ctx, keywordLegSQL, scope.TenantID, scope.UserID, scope.ThreadID, Stems(pick(kws, rare)), beforeID, keywordCap, tsQuery(pick(kws, t.ownOf(rare))))
		if err != nil {
			return nil, nil, postgres.Wrap("search: keywords", err)
		}
		var kw int32
		var id int64
		var rank float64
		_, err = pgx.ForEachRow(rows, []any{&kw, &id, &rank}, func() error {
			f.add(id, rare[kw-1], rank)
			return nil
		})
		if err != nil {
			return nil, nil, postgres.Wrap("search: keywords", err)
		}
	}
	byKeyword, byText = f.legs(float64(count))
	return byKeyword, byText, nil
}

// sample reads the thread's newest messages (sampleSQL) and adds to f the
// matches of the keywords common in the thread, with their estimated
// document frequency. It returns the indexes of the other keywords.
func sample(ctx context.Context, db DB, scope yakor.Scope, kws []words.Keyword, count int64, beforeID int64, f *found) ([]int, error) {
	if count < commonDF { // no keyword can be common
		all := make([]int, len(kws))
		for i := range all {
			all[i] = i
		}
		return all, nil
	}
	rows, err := db.Query(ctx, sampleSQL, scope.TenantID, scope.UserID, scope.ThreadID, Stems(kws), beforeID, sampleRows)
	if err != nil {
		return nil, postgres.Wrap("search: sample", err)
	}
	hits := make([][]int64, len(kws))
	seen := map[int64]bool{}
	var id int64
	var kw *int32
	_, err = pgx.ForEachRow(rows, []any{&id, &kw}, func() error {
		seen[id] = true
		if kw != nil {
			hits[*kw-1] = append(hits[*kw-1], id)
		}
		return nil
	})
	if err != nil {
		return nil, postgres.Wrap("search: sample", err)
	}
	var rare []int
	for i, ids := range hits {
		df := float64(len(ids)) / float64(max(len(seen), 1)) * float64(count)
		if df < commonDF {
			rare = append(rare, i)
			continue
		}
		for _, id := range ids {
			f.add(id, i, 0)
		}
		f.df[i] = df
	}
	return rare, nil
}

// found is what the legs' statements found: the terms each message holds
// (by index into terms), in how many messages each term is (counted, or
// estimated for a common one), and each message's full-text rank.
type found struct {
	kws   map[int64][]int
	terms terms // the keywords and related words looked for, with their weights
	df    []float64
	rank  map[int64]float64
}

func newFound(t terms) *found {
	return &found{kws: map[int64][]int{}, terms: t, df: make([]float64, len(t.kws)), rank: map[int64]float64{}}
}

// add records that message id holds keyword kw (-1: none) and has the
// full-text rank rank (0: no match).
func (f *found) add(id int64, kw int, rank float64) {
	if kw >= 0 {
		f.kws[id] = append(f.kws[id], kw)
		f.df[kw]++
	}
	if rank > 0 {
		f.rank[id] = rank
	}
}

// legs ranks what was found in a thread of n messages: by the
// rare-word-weighted count of terms (each also weighing its weight), and by
// full-text rank; legTop each.
func (f *found) legs(n float64) (byKeyword, byText []scored) {
	byKeyword = make([]scored, 0, len(f.kws))
	for id, kws := range f.kws {
		score := 0.0
		for _, i := range kws {
			// A related word rarer than its keyword weighs no more than the
			// keyword: "oak" must not outrank "walnut" for "walnut board".
			idf := min(IDF(n, f.df[i]), IDF(n, f.df[f.terms.source[i]]))
			score += idf * f.terms.weights[i]
		}
		byKeyword = append(byKeyword, scored{id: id, score: score})
	}
	byText = make([]scored, 0, len(f.rank))
	for id, r := range f.rank {
		byText = append(byText, scored{id: id, score: r})
	}
	return top(byKeyword), top(byText)
}

// IDF weighs a keyword found in df of n texts: rare words weigh more
// (BM25's inverse document frequency, kept positive). Search weighs its
// keyword leg with it, and long-term memory's recall its lexical leg.
func IDF(n, df float64) float64 {
	return math.Log(1 + (max(n, df)-df+0.5)/(df+0.5))
}

// top orders a leg by score, the newer first on ties, and keeps legTop.
func top(l []scored) []scored {
	slices.SortFunc(l, byScore)
	return l[:min(len(l), legTop)]
}

func byScore(a, b scored) int {
	switch {
	case a.score > b.score:
		return -1
	case a.score < b.score:
		return 1
	case a.id > b.id:
		return -1
	case a.id < b.id:
		return 1
	}
	return 0
}

// ownOf returns the indexes in at of the query's own keywords.
func (t terms) ownOf(at []int) []int {
	var out []int
	for _, i := range at {
		if i < t.own {
			out = append(out, i)
		}
	}
	return out
}

// pick returns the keywords at the indexes at.
func pick(kws []words.Keyword, at []int) []words.Keyword {
	out := make([]words.Keyword, len(at))
	for i, j := range at {
		out[i] = kws[j]
	}
	return out
}

// maxLexeme is the longest word, in bytes, a tsquery takes (PostgreSQL's
// limit is 2,047; a longer word is not indexed either), less the thread's
// tag that keywordLegSQL puts before a stem.
const maxLexeme = 2046 - 8

// Stems returns the keywords' stems, each cut to maxLexeme at a rune
// boundary, for the prefix queries of tagged words (yakor_word_prefix,
// migration 00021). A stem holds only letters and digits (words.Keywords),
// so quoting it needs no escapes.
func Stems(kws []words.Keyword) []string {
	out := make([]string, len(kws))
	for i, k := range kws {
		stem := k.Stem
		if len(stem) > maxLexeme {
			cut := maxLexeme
			for !utf8.RuneStart(stem[cut]) {
				cut--
			}
			stem = stem[:cut]
		}
		out[i] = stem
	}
	return out
}

// tsQuery joins the keywords' words with websearch_to_tsquery's "or"; that
// function never fails on its input, and the words are letters and digits.
func tsQuery(kws []words.Keyword) string {
	words := make([]string, len(kws))
	for i, k := range kws {
		words[i] = k.Word
	}
	return strings.Join(words, " or ")
}
