package search

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"yakor"
	"yakor/postgres"
	"yakor/words"
)

// Defaults of a search.
const (
	DefaultBudget = 8000 // characters of hits
	DefaultLimit  = 50   // hits at most
	// keywordCap bounds how many messages one keyword's leg reads: a word
	// that common carries little evidence anyway.
	keywordCap = 500
	// ftsCap bounds the full-text leg's candidates the same way.
	ftsCap = 400
	// legTop is how many ranked messages each leg hands to the fusion.
	legTop = 200
	// rrfK is the constant of reciprocal rank fusion.
	rrfK = 60
	// shortHit is the length under which a hit brings the message before it
	// along, so that "Yes, twice!" can be read. A question brings the
	// message after it, its answer, whatever its length.
	shortHit = 100
	// smallThread is the size up to which a thread is read whole, once,
	// rather than through the indexes: reading a few thousand rows costs
	// less than walking index postings shared with every other thread.
	smallThread = 3000
)

// DB is what the searcher needs of a pool or a transaction.
type DB interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Begin(ctx context.Context) (pgx.Tx, error)
}

// Searcher searches threads. It only reads history's tables (and, through
// its semantic leg when it has one, the message embeddings).
type Searcher struct {
	db       DB
	small    int64    // threads up to this size are read whole
	semantic Semantic // nil: no semantic leg
}

// NewSearcher returns a Searcher on db.
func NewSearcher(db DB) *Searcher { return &Searcher{db: db, small: smallThread} }

// Options tune one search.
type Options struct {
	// Budget is the characters of hits (neighbours included) to fill, in
	// rank order; 0 means DefaultBudget, negative means no budget.
	Budget int
	// Limit is the most hits returned; 0 means DefaultLimit.
	Limit int
	// BeforeID, when set, searches only messages older than it: the turn
	// passes the window's first message, so hits add what the window lacks.
	BeforeID int64
	// NoNeighbours leaves hits without their neighbours (the message before
	// a short hit, the answer after a question).
	NoNeighbours bool
	// NoSemantic leaves the semantic leg (see WithSemantic) out of this
	// search.
	NoSemantic bool
	// MinSimilarity is the cosine similarity a semantic neighbour needs to
	// be ranked; 0 means DefaultMinSimilarity, negative keeps them all.
	MinSimilarity float64
}

// Hit is one message found.
type Hit struct {
	MessageID int64     `json:"message_id"`
	Role      string    `json:"role"`
	Author    string    `json:"author,omitempty"`
	Content   string    `json:"content"`
	CreatedAt time.Time `json:"created_at"`
	Score     float64   `json:"score"`
	// Neighbour marks a message included for a hit's sake: the one before a
	// short hit, or the answer after a question. Its score is the hit's.
	Neighbour bool `json:"neighbour,omitempty"`
}

// Result is what one search found.
type Result struct {
	Query    string        `json:"query"`
	Keywords []string      `json:"keywords"`
	Hits     []Hit         `json:"hits"` // in rank order; neighbours stand beside their hit
	Chars    int           `json:"chars"`
	Took     time.Duration `json:"-"`
	Semantic int           `json:"-"` // messages the semantic leg handed to the fusion
	// SemanticErr is why the semantic leg failed: the search went on without it.
	SemanticErr error `json:"-"`
}

// Search finds the messages of scope's thread that best match query (its
// own messages, not the summaries of them, which only repeat them): the
// query's keywords (folded, stop words and the thread's speakers' names
// removed, stemmed) are matched as substrings of the folded text, weighted
// by how rare each is in the thread, and fused by reciprocal rank with
// PostgreSQL's full-text rank and, when the searcher has a semantic leg
// (WithSemantic) and opt.NoSemantic is not set, with the messages nearest
// to the query in meaning; ties go to the newer message. Every statement is
// parameterized and scoped by tenant, user and thread. An unknown thread is
// ENOTFOUND; a query with no distinctive word finds nothing, even by
// meaning.
func (s *Searcher) Search(ctx context.Context, scope yakor.Scope, query string, opt Options) (Result, error) {
	start := time.Now()
	res := Result{Query: query, Hits: []Hit{}, Keywords: []string{}}
	if opt.Budget == 0 {
		opt.Budget = DefaultBudget
	}
	if opt.Limit <= 0 {
		opt.Limit = DefaultLimit
	}
	var (
		count   int64
		authors []string
	)
	err := s.db.QueryRow(ctx, `SELECT message_count, authors FROM threads WHERE tenant_id = $1 AND user_id = $2 AND id = $3`,
		scope.TenantID, scope.UserID, scope.ThreadParam()).Scan(&count, &authors)
	if err != nil {
		return res, postgres.NotFound("search: thread", err, yakor.Errorf(yakor.ENOTFOUND, "thread %q not found", scope.ThreadID))
	}
	kws := words.Keywords(query, authors)
	if len(kws) == 0 {
		res.Took = time.Since(start)
		return res, nil
	}
	for _, k := range kws {
		res.Keywords = append(res.Keywords, k.Stem)
	}
	semCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	semantic := s.startSemantic(semCtx, scope, query, opt)

	var byKeyword, byText []scored
	if count <= s.small {
		byKeyword, byText, err = s.smallLegs(ctx, scope, kws, count, opt.BeforeID)
	} else {
		byKeyword, byText, err = s.indexedLegs(ctx, scope, kws, count, opt.BeforeID)
	}
	if err != nil {
		return res, err
	}
	byMeaning, err := awaitSemantic(ctx, semantic, &res)
	if err != nil {
		return res, err
	}
	ranked := fuse(byKeyword, byText, byMeaning)
	if len(ranked) == 0 {
		res.Took = time.Since(start)
		return res, nil
	}
	res.Hits, res.Chars, err = s.fill(ctx, scope, ranked, opt)
	if err != nil {
		return res, err
	}
	res.Took = time.Since(start)
	return res, nil
}

// keywordLegSQL: $1 tenant, $2 user, $3 thread, $4 patterns, $5 before id
// (0: all), $6 cap per keyword, $7 messages in the thread, $8 rows.
const keywordLegSQL = `
WITH kw AS (
    SELECT pat, i FROM unnest($4::text[]) WITH ORDINALITY AS k(pat, i)
), hits AS (
    SELECT kw.i, m.id
    FROM kw CROSS JOIN LATERAL (
        SELECT id FROM messages
        WHERE tenant_id = $1 AND user_id = $2 AND thread_id = $3
          AND ($5::bigint = 0 OR id < $5) AND kind <> 'summary' AND superseded_at IS NULL
          AND folded LIKE kw.pat
        LIMIT $6
    ) m
), df AS (
    SELECT i, count(*) AS n FROM hits GROUP BY i
)
SELECT hits.id, sum(ln(1 + (greatest($7::float8, df.n) - df.n + 0.5) / (df.n + 0.5))) AS score
FROM hits JOIN df USING (i)
GROUP BY hits.id
ORDER BY score DESC, hits.id DESC
LIMIT $8`

// textLegSQL: $1 tenant, $2 user, $3 thread, $4 websearch query, $5 before
// id (0: all), $6 candidates, $7 rows.
const textLegSQL = `
WITH q AS (SELECT websearch_to_tsquery('russian', $4) AS q)
SELECT c.id, ts_rank(c.tsv, q.q)::float8 AS rank
FROM q, LATERAL (
    SELECT id, tsv FROM messages
    WHERE tenant_id = $1 AND user_id = $2 AND thread_id = $3
      AND ($5::bigint = 0 OR id < $5) AND kind <> 'summary' AND superseded_at IS NULL
      AND tsv @@ q.q
    LIMIT $6
) c
ORDER BY rank DESC, c.id DESC
LIMIT $7`

// smallLegsSQL reads a small thread once and returns a row for each
// keyword a message's folded text contains (strpos: the same substring test
// as the indexed LIKE, at a fraction of its cost) and a row with a null
// keyword for a full-text match without one, each with the message's
// full-text rank: $1 tenant, $2 user, $3 thread, $4 stems, $5 websearch
// query, $6 before id (0: all).
const smallLegsSQL = `
SELECT m.id, k.i::int, CASE WHEN m.tsv @@ q.q THEN ts_rank(m.tsv, q.q)::float8 ELSE 0 END
FROM messages m
CROSS JOIN websearch_to_tsquery('russian', $5) AS q(q)
LEFT JOIN unnest($4::text[]) WITH ORDINALITY AS k(s, i) ON strpos(m.folded, k.s) > 0
WHERE m.tenant_id = $1 AND m.user_id = $2 AND m.thread_id = $3 AND ($6::bigint = 0 OR m.id < $6) AND m.kind <> 'summary' AND m.superseded_at IS NULL
  AND (k.i IS NOT NULL OR m.tsv @@ q.q)`

type scored struct {
	id    int64
	score float64
}

// indexedLegs runs both legs through the thread-keyed GIN indexes, in one
// transaction with plain index scans off. Each leg reads at most a few
// hundred candidates, and with that LIMIT in view the planner likes to walk
// the thread's btree in id order and filter, hoping to stop early; for a
// rare word it then reads the whole thread (a 100,000-message thread: up to
// a second). Bitmap scans leave it the GIN indexes, which intersect the
// thread and the words before reading a row.
func (s *Searcher) indexedLegs(ctx context.Context, scope yakor.Scope, kws []words.Keyword, count int64, beforeID int64) (byKeyword, byText []scored, err error) {
	err = pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT set_config('enable_indexscan', 'off', true)`); err != nil {
			return postgres.Wrap("search: plan", err)
		}
		var err error
		if byKeyword, err = keywordLeg(ctx, tx, scope, kws, count, beforeID); err != nil {
			return err
		}
		byText, err = textLeg(ctx, tx, scope, kws, beforeID)
		return err
	})
	return byKeyword, byText, err
}

// keywordLeg ranks messages by the rare-word-weighted count of keywords
// they contain: each keyword's stem is an escaped substring pattern over
// the folded text, served by the thread-keyed trigram index.
func keywordLeg(ctx context.Context, db DB, scope yakor.Scope, kws []words.Keyword, count int64, beforeID int64) ([]scored, error) {
	rows, err := db.Query(ctx, keywordLegSQL, scope.TenantID, scope.UserID, scope.ThreadID, patterns(kws), beforeID, keywordCap, float64(count), legTop)
	if err != nil {
		return nil, postgres.Wrap("search: keywords", err)
	}
	return collectScored(rows, "search: keywords")
}

// smallLegs scores both legs of a small thread in one pass over it; the
// keyword weights are computed here from the matches, as keywordLegSQL
// computes them in SQL.
func (s *Searcher) smallLegs(ctx context.Context, scope yakor.Scope, kws []words.Keyword, count int64, beforeID int64) (byKeyword, byText []scored, err error) {
	stems := make([]string, len(kws))
	for i, k := range kws {
		stems[i] = k.Stem
	}
	rows, err := s.db.Query(ctx, smallLegsSQL, scope.TenantID, scope.UserID, scope.ThreadID, stems, tsQuery(kws), beforeID)
	if err != nil {
		return nil, nil, postgres.Wrap("search: small thread", err)
	}
	type match struct {
		keywords []int
		rank     float64
	}
	found := map[int64]*match{}
	var order []int64
	df := make([]float64, len(kws)+1)
	for rows.Next() {
		var id int64
		var kw *int32
		var rank float64
		if err := rows.Scan(&id, &kw, &rank); err != nil {
			rows.Close()
			return nil, nil, fmt.Errorf("search: small thread: %w", err)
		}
		m := found[id]
		if m == nil {
			m = &match{rank: rank}
			found[id] = m
			order = append(order, id)
		}
		if kw != nil {
			m.keywords = append(m.keywords, int(*kw))
			df[*kw]++
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, postgres.Wrap("search: small thread", err)
	}
	n := float64(count)
	for _, id := range order {
		m := found[id]
		if len(m.keywords) > 0 {
			score := 0.0
			for _, i := range m.keywords {
				score += idf(n, df[i])
			}
			byKeyword = append(byKeyword, scored{id: id, score: score})
		}
		if m.rank > 0 {
			byText = append(byText, scored{id: id, score: m.rank})
		}
	}
	return top(byKeyword), top(byText), nil
}

// idf weighs a keyword found in df of n messages: rare words weigh more
// (BM25's inverse document frequency, kept positive).
func idf(n, df float64) float64 {
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

// patterns turns keywords into escaped substring patterns.
func patterns(kws []words.Keyword) []string {
	out := make([]string, len(kws))
	for i, k := range kws {
		out[i] = "%" + escapeLike(k.Stem) + "%"
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

// textLeg ranks messages by PostgreSQL full-text rank of the keywords'
// words (OR-ed), over the stored tsvector.
func textLeg(ctx context.Context, db DB, scope yakor.Scope, kws []words.Keyword, beforeID int64) ([]scored, error) {
	rows, err := db.Query(ctx, textLegSQL, scope.TenantID, scope.UserID, scope.ThreadID, tsQuery(kws), beforeID, ftsCap, legTop)
	if err != nil {
		return nil, postgres.Wrap("search: full text", err)
	}
	return collectScored(rows, "search: full text")
}

func collectScored(rows pgx.Rows, op string) ([]scored, error) {
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (scored, error) {
		var s scored
		err := r.Scan(&s.id, &s.score)
		return s, err
	})
	if err != nil {
		return nil, postgres.Wrap(op, err)
	}
	return out, nil
}

// fuse merges ranked lists by reciprocal rank fusion; ties go to the newer
// message.
func fuse(lists ...[]scored) []scored {
	sum := map[int64]float64{}
	for _, l := range lists {
		for rank, s := range l {
			sum[s.id] += 1.0 / float64(rrfK+rank+1)
		}
	}
	out := make([]scored, 0, len(sum))
	for id, sc := range sum {
		out = append(out, scored{id: id, score: sc})
	}
	slices.SortFunc(out, byScore)
	return out
}

// escapeLike escapes LIKE's wildcards and its escape character, so a
// pattern matches its text literally.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
