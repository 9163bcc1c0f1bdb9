package search

import (
	"context"
	"slices"
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
	DefaultLimit  = 120  // hits at most
	// rrfK is the constant of reciprocal rank fusion.
	rrfK = 60
	// speakerBoost weighs the fused score of a message by a speaker the
	// query names ("What does Melanie do to destress?"): on LoCoMo, as a
	// turn, 87.6% → 87.7% of the questions' evidence, multi-hop 73.1% →
	// 73.6%, open-domain 64.6% → 65.1% (87.3% with the whole thread's
	// search, from 86.7%); 1.7 times gained less.
	speakerBoost = 1.3
	// shortHit is the length under which a hit brings the message before it
	// along, so that "Yes, twice!" can be read. A question brings the
	// message after it, its answer, whatever its length.
	shortHit = 100
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
	semantic Semantic // nil: no semantic leg
}

// NewSearcher returns a Searcher on db.
func NewSearcher(db DB) *Searcher { return &Searcher{db: db} }

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
	// NoRelated searches the query's keywords only, not the words related
	// to them in meaning too (see widen).
	NoRelated bool
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
	Query    string   `json:"query"`
	Keywords []string `json:"keywords"`
	// Related are the stems of the words related in meaning to the
	// keywords that the search looked for too, each weighing its similarity.
	Related  []string      `json:"related"`
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
// removed, stemmed), and the English words related to them in meaning
// (widen), are matched as substrings of the folded text, weighted by how
// rare each is in the thread (and a related word by its similarity too),
// and fused by reciprocal rank with
// PostgreSQL's full-text rank and, when the searcher has a semantic leg
// (WithSemantic) and opt.NoSemantic is not set, with the messages nearest
// to the query in meaning; ties go to the newer message. A message by a
// speaker the query names (a thread's author) weighs speakerBoost times
// more. Every statement is
// parameterized and scoped by tenant, user and thread. An unknown thread is
// ENOTFOUND; a query with no distinctive word finds nothing, even by
// meaning.
func (s *Searcher) Search(ctx context.Context, scope yakor.Scope, query string, opt Options) (Result, error) {
	start := time.Now()
	res := Result{Query: query, Hits: []Hit{}, Keywords: []string{}, Related: []string{}}
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
	t := widen(kws, authors, opt.NoRelated)
	res.Related = t.related()
	semCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	semantic := s.startSemantic(semCtx, scope, query, opt)

	byKeyword, byText, err := s.legs(ctx, scope, t, count, opt.BeforeID)
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
	res.Hits, res.Chars, err = s.fill(ctx, scope, ranked, opt, words.Named(query, authors))
	if err != nil {
		return res, err
	}
	res.Took = time.Since(start)
	return res, nil
}

// Fuse orders the ids of ranked lists (each best first) by reciprocal rank
// fusion, as Search fuses its legs; ties go to the higher id (the newer).
// Long-term memory's recall fuses its vector and lexical legs with it.
func Fuse(lists ...[]int64) []int64 {
	ranked := make([][]scored, len(lists))
	for i, l := range lists {
		for rank, id := range l {
			ranked[i] = append(ranked[i], scored{id: id, score: -float64(rank)})
		}
	}
	fused := fuse(ranked...)
	ids := make([]int64, len(fused))
	for i, s := range fused {
		ids[i] = s.id
	}
	return ids
}

// fuse merges ranked lists (each ordered by score, best first) by
// reciprocal rank fusion; ties go to the newer message. The messages of a
// list that tie on its score share their ranks' mean, so that the other
// lists order them: a keyword leg's many messages holding the same keyword
// are not ranked by age. On LoCoMo as a turn 89.1% → 89.4% of the
// questions' evidence, multi-hop 78.0% → 78.5%, open-domain 69.7% →
// 70.4%; the first 10 hits hold 68.5% of it, not 67.2%.
func fuse(lists ...[]scored) []scored {
	sum := map[int64]float64{}
	for _, l := range lists {
		for i := 0; i < len(l); {
			j := i + 1
			for j < len(l) && l[j].score == l[i].score {
				j++
			}
			rank := float64(i+j-1) / 2 // from 0
			for _, s := range l[i:j] {
				sum[s.id] += 1 / (rrfK + rank + 1)
			}
			i = j
		}
	}
	out := make([]scored, 0, len(sum))
	for id, sc := range sum {
		out = append(out, scored{id: id, score: sc})
	}
	slices.SortFunc(out, byScore)
	return out
}
