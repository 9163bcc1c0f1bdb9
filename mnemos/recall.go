package mnemos

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"yakor"
	"yakor/fence"
	"yakor/postgres"
	"yakor/search"
	"yakor/words"
)

// RecallConfig tunes the few-shot block of each prompt.
type RecallConfig struct {
	Budget   int // characters of the whole block; default 3,000
	Examples int // L1 entries at most; default 3
	Notes    int // L2 entries at most; default 2
	Warnings int // L3 entries at most; default 2
	// MinSimilarity is the lowest score (cosine similarity plus the topic
	// boost) at which the vector leg recalls an entry; default 0.45.
	MinSimilarity float64
	// TopicBoost is added to an entry's score in proportion to how well its
	// topic matches the message's; default 0.15.
	TopicBoost float64
	// MinLexical is the lowest lexical score (the rarity-weighted share of
	// the message's keywords an entry holds, two keywords at least) at
	// which the lexical leg recalls an entry; default 0.5.
	MinLexical float64
	// NoLexical leaves the lexical leg out: entries are found by their
	// vectors alone.
	NoLexical bool
	Off       bool // no block at all
}

func (c *RecallConfig) defaults() {
	c.Budget = cmp.Or(max(c.Budget, 0), 3000)
	c.Examples = cmp.Or(max(c.Examples, 0), 3)
	c.Notes = cmp.Or(max(c.Notes, 0), 2)
	c.Warnings = cmp.Or(max(c.Warnings, 0), 2)
	c.MinSimilarity = cmp.Or(max(c.MinSimilarity, 0), 0.45)
	c.TopicBoost = cmp.Or(max(c.TopicBoost, 0), 0.15)
	c.MinLexical = cmp.Or(max(c.MinLexical, 0), 0.5)
}

// limits are the entries of each level a block holds at most.
func (c RecallConfig) limits() [4]int { return [4]int{0, c.Examples, c.Notes, c.Warnings} }

// Recall is the memory a message called up.
type Recall struct {
	// Text is the fenced block for the prompt, "" when nothing matched.
	Text    string
	Entries []Recalled
	Took    time.Duration
}

// Recalled is one experience in a recall, with its scores.
type Recalled struct {
	ID    int64   `json:"id"`
	Level int     `json:"level"`
	Topic string  `json:"topic"`
	Score float64 `json:"score"` // cosine similarity plus the topic boost
	// Lexical is the lexical leg's score (0: not found by its words).
	Lexical float64 `json:"lexical,omitempty"`
}

type candidate struct {
	Experience
	similarity, score float64
	lexical           lexicalScore
}

// recallQuery is one message's recall: its vector in the space, its
// keywords' stems (none without the lexical leg) and its topic, and the
// sizes of the tenant's levels.
type recallQuery struct {
	scope yakor.Scope
	space int32
	vec   pgvector.Vector
	stems []string
	read  [4][]string // the stems each level's lexical statement reads (commonStems.toRead)
	topic string
	sizes [4]sizeEntry
}

// Recall finds the tenant's experiences that the user may recall for
// message (its own and the tenant's shared ones) by two legs: the nearest
// in meaning, boosted by topic match, and those holding the message's
// keywords (stems at the start of their words, rare words weighing more).
// An entry either leg recalls (MinSimilarity, MinLexical) is ranked by the
// legs' fused ranks, as history search fuses its own: the best examples
// (L1), notes (L2) and warnings (L3), fenced in <memory-context> within the
// budget and marked reference-only, in the conversation's language (lang
// "ru" or "en").
func (s *Store) Recall(ctx context.Context, scope yakor.Scope, message, lang string) (Recall, error) {
	start := time.Now()
	cfg := s.cfg.Recall
	if cfg.Off || !hasWord(message) {
		// Nothing to be near: a text without letters or digits embeds to
		// a zero vector, and has no keywords.
		return Recall{}, nil
	}
	space, _, err := s.space.ID(ctx)
	if err != nil {
		return Recall{}, fmt.Errorf("recall: %w", err)
	}
	q := recallQuery{scope: scope, space: space, stems: stemsOf(message, cfg.NoLexical), topic: words.Topic(message, nil)}
	held := 0
	for level := L1; level <= L3; level++ {
		if q.sizes[level], err = s.size(ctx, s.db, scope.TenantID, level, space); err != nil {
			return Recall{}, postgres.Wrap("recall", err)
		}
		held += q.sizes[level].n
		if len(q.stems) > 0 {
			q.read[level] = s.common.toRead(scope, level, space, q.stems)
		}
	}
	if held == 0 {
		// The tenant's memory is empty: nothing to embed the message for.
		return Recall{Took: time.Since(start)}, nil
	}
	if _, q.vec, err = s.space.EmbedOne(ctx, message); err != nil {
		return Recall{}, fmt.Errorf("recall: %w", err)
	}
	got, err := s.recallLegs(ctx, q)
	if err != nil {
		return Recall{}, postgres.Wrap("recall", err)
	}
	sim := words.NewSimilarity()
	var picked [4][]candidate
	for level := L1; level <= L3; level++ {
		picked[level] = s.choose(got[level], q.topic, sim, cfg.limits()[level])
	}
	r := render(picked, lang, cfg.Budget)
	r.Took = time.Since(start)
	return r, nil
}

// legs is what recall's legs found in one level: the candidates (the
// vector leg's nearest, then the entries the lexical leg ranked among its
// best that were not among them, each with its similarity) and the lexical
// leg's weigher.
type legs struct {
	cands []candidate
	words weigher
}

// recallLegs runs both legs for every level in one batch, then reads the
// lexical leg's best entries that the vector leg did not return.
func (s *Store) recallLegs(ctx context.Context, q recallQuery) ([4]legs, error) {
	var out [4]legs
	limits := s.cfg.Recall.limits()
	dims := len(q.vec.Slice())
	batch := &pgx.Batch{}
	for level := L1; level <= L3; level++ {
		batch.Queue(recallSQL(q.space, dims, level, q.sizes[level].exact(), ownOrShared), q.scope.TenantID, q.vec, candidates(limits[level]), q.scope.UserID)
	}
	if len(q.stems) > 0 {
		for level := L1; level <= L3; level++ {
			batch.Queue(lexicalSQL, q.scope.TenantID, level, q.space, q.scope.UserID, q.read[level], lexicalCap)
		}
	}
	fs, err := readLegs(s.db.SendBatch(ctx, batch), &out, q)
	if err != nil {
		return out, err
	}
	for level := L1; level <= L3 && len(q.stems) > 0; level++ {
		s.common.learn(q.scope, level, q.space, q.read[level], &fs[level])
		out[level].words = newWeigher(q.stems, fs[level], q.sizes[level].n)
	}
	// The lexical leg's best that the vector leg did not hand on: twice as
	// many as the level's block holds (on the labelled set, more changed
	// nothing but the time).
	var more []int64
	for level := L1; level <= L3; level++ {
		for _, id := range out[level].words.ranked(2 * limits[level]) {
			if !slices.ContainsFunc(out[level].cands, func(c candidate) bool { return c.ID == id }) {
				more = append(more, id)
			}
		}
	}
	if len(more) == 0 {
		return out, nil
	}
	rows, err := s.db.Query(ctx, entriesSQL(q.space, dims), q.scope.TenantID, q.vec, more, q.scope.UserID)
	if err != nil {
		return out, err
	}
	cs, err := pgx.CollectRows(rows, scanCandidate)
	for _, c := range cs {
		out[c.Level].cands = append(out[c.Level].cands, c)
	}
	return out, err
}

// candidates is how many entries each leg hands on for a level whose block
// holds limit of them.
func candidates(limit int) int { return max(4*limit, 8) }

// readLegs reads recallLegs' batch: the vector leg's candidates into out,
// and what the lexical leg found in each level.
func readLegs(br pgx.BatchResults, out *[4]legs, q recallQuery) ([4]found, error) {
	defer br.Close()
	var fs [4]found
	for level := L1; level <= L3; level++ {
		rows, err := br.Query()
		if err != nil {
			return fs, err
		}
		if out[level].cands, err = pgx.CollectRows(rows, scanCandidate); err != nil {
			return fs, err
		}
	}
	for level := L1; level <= L3 && len(q.stems) > 0; level++ {
		rows, err := br.Query()
		if err != nil {
			return fs, err
		}
		if fs[level], err = readFound(rows, len(q.stems)); err != nil {
			return fs, err
		}
	}
	return fs, br.Close()
}

// choose scores a level's candidates by both legs, keeps those either leg
// recalls, and orders them by the legs' fused ranks (search.Fuse): at most
// limit.
func (s *Store) choose(l legs, topic string, sim func(a, b string) float64, limit int) []candidate {
	cfg := s.cfg.Recall
	cs := dropTwins(l.cands)
	byID := make(map[int64]candidate, len(cs))
	for i := range cs {
		c := &cs[i]
		c.score = c.similarity
		if topic != "" && c.Topic != "" {
			c.score += cfg.TopicBoost * sim(topic, c.Topic)
		}
		if math.IsNaN(c.score) {
			// An entry stored from a text without letters or digits
			// (";)") has a zero vector: near nothing.
			c.score = 0
		}
		c.lexical = l.words.score(c.Experience)
		byID[c.ID] = *c
	}
	slices.SortStableFunc(cs, func(a, b candidate) int { return cmp.Compare(b.score, a.score) })
	near := make([]int64, len(cs))
	for i, c := range cs {
		near[i] = c.ID
	}
	// The lexical leg's order, the nearer first among equals.
	var lexical []int64
	for _, c := range cs {
		if c.lexical.score > 0 {
			lexical = append(lexical, c.ID)
		}
	}
	slices.SortStableFunc(lexical, func(a, b int64) int { return cmp.Compare(byID[b].lexical.score, byID[a].lexical.score) })
	var out []candidate
	for _, id := range search.Fuse(near, lexical) {
		if len(out) == limit {
			break
		}
		if c := byID[id]; c.score >= cfg.MinSimilarity || c.lexical.recalled(cfg.MinLexical) {
			out = append(out, c)
		}
	}
	return out
}

// Owner conditions of recallSQL on $4, a user id: the entries a user may
// recall (its own and the tenant's shared ones; Recall leaves out the
// shared twins of its own, dropTwins), or those of one owner ("": the
// tenant's), among which an entry merges.
const (
	ownOrShared = `(e.user_id::text = $4 OR e.visibility = 'shared')`
	sameOwner   = `user_id IS NOT DISTINCT FROM nullif($4, '')::uuid`
)

// recallSQL reads a tenant's entries of one level nearest to a vector that
// meet owner (ownOrShared or sameOwner): $1 tenant, $2 vector, $3 rows, $4
// the user. The space, dimension and level are literals,
// so that the planner can use the space's partial HNSW index for the level
// (see buildIndexes); all three are integers of this package's. exact
// scans the tenant's rows instead (OFFSET 0 keeps the subquery, and the
// index, out of the ordering), for a tenant with few of them.
func recallSQL(space int32, dims, level int, exact bool, owner string) string {
	from := "experiences e"
	if exact {
		from = fmt.Sprintf(`(SELECT * FROM experiences WHERE tenant_id = $1 AND space_id = %d AND level = %d OFFSET 0) e`, space, level)
	}
	return fmt.Sprintf(`SELECT %[6]s
FROM %[4]s
WHERE tenant_id = $1 AND space_id = %[1]d AND level = %[3]d AND %[5]s
ORDER BY embedding::vector(%[2]d) <=> $2::vector(%[2]d)
LIMIT $3`, space, dims, level, from, owner, candidateColumns(dims))
}

// entriesSQL reads the tenant's entries of the ids $3 in the space that the
// user ($4) may recall, with their similarity to the vector $2.
func entriesSQL(space int32, dims int) string {
	return fmt.Sprintf(`SELECT %[3]s
FROM experiences e
WHERE tenant_id = $1 AND id = ANY($3::bigint[]) AND space_id = %[1]d AND %[2]s`, space, ownOrShared, candidateColumns(dims))
}

// candidateColumns are the columns scanCandidate reads, the similarity to
// the vector $2 last.
func candidateColumns(dims int) string {
	return fmt.Sprintf(`id, level, topic, question, answer, reason, url, visibility, coalesce(derived_from, 0),
    1 - (embedding::vector(%[1]d) <=> $2::vector(%[1]d)) AS similarity`, dims)
}

func scanCandidate(r pgx.CollectableRow) (candidate, error) {
	var c candidate
	err := r.Scan(&c.ID, &c.Level, &c.Topic, &c.Question, &c.Answer, &c.Reason, &c.URL, &c.Visibility, &c.DerivedFrom, &c.similarity)
	return c, err
}

// recallWords are the block's fixed words in each language.
type recallWords struct {
	intro, example, note, warning, question, answer, wrong, why, source string
}

var wordsByLang = map[string]recallWords{
	"en": {
		intro:    "Reference only: notes from this assistant's past conversations, not part of the user's message. Use them if they help; do not quote or mention them.",
		example:  "Good answer to a similar question",
		note:     "Study note",
		warning:  "Warning: an answer like this was wrong",
		question: "Q", answer: "A", wrong: "Wrong answer", why: "Why", source: "Source",
	},
	"ru": {
		intro:    "Только для справки: заметки из прошлых разговоров этого ассистента, не часть сообщения пользователя. Используй их, если они помогают; не цитируй и не упоминай их.",
		example:  "Хороший ответ на похожий вопрос",
		note:     "Учебная заметка",
		warning:  "Предупреждение: такой ответ был ошибочным",
		question: "В", answer: "О", wrong: "Ошибочный ответ", why: "Почему", source: "Источник",
	},
}

// Render lays entries out as the <memory-context> block in lang within
// budget characters, examples (L1) first, then notes (L2) and warnings
// (L3), each level in the order given; every stored field is fenced
// (fence.Text, fence.Inline), so no entry can close the block. Recall
// renders what it picked with it.
func Render(entries []Experience, lang string, budget int) Recall {
	var picked [4][]candidate
	for _, e := range entries {
		if e.Level >= L1 && e.Level <= L3 {
			picked[e.Level] = append(picked[e.Level], candidate{Experience: e})
		}
	}
	return render(picked, lang, budget)
}

// render lays the picked entries out within budget characters, examples
// first; an entry that does not fit whole is shortened, and one that cannot
// fit at all is left out.
func render(picked [4][]candidate, lang string, budget int) Recall {
	w, ok := wordsByLang[lang]
	if !ok {
		w = wordsByLang["en"]
	}
	head := FenceOpen + "\n" + w.intro + "\n"
	tail := FenceClose
	left := budget - utf8.RuneCountInString(head) - utf8.RuneCountInString(tail)
	var (
		b   strings.Builder
		out Recall
	)
	for level := L1; level <= L3; level++ {
		for _, c := range picked[level] {
			entry := renderEntry(c, w)
			n := utf8.RuneCountInString(entry)
			if n > left {
				if left < 200 {
					continue
				}
				entry = cut(entry, left-2) + "…\n"
				n = utf8.RuneCountInString(entry)
			}
			b.WriteString(entry)
			left -= n
			out.Entries = append(out.Entries, Recalled{ID: c.ID, Level: c.Level, Topic: c.Topic, Score: c.score, Lexical: c.lexical.score})
		}
	}
	if len(out.Entries) == 0 {
		return Recall{}
	}
	out.Text = head + b.String() + tail
	return out
}

func renderEntry(c candidate, w recallWords) string {
	var b strings.Builder
	label := map[int]string{L1: w.example, L2: w.note, L3: w.warning}[c.Level]
	b.WriteString("[" + label)
	if c.Topic != "" {
		b.WriteString(" · " + fence.Inline(c.Topic))
	}
	b.WriteString("]\n")
	switch c.Level {
	case L1:
		fmt.Fprintf(&b, "%s: %s\n%s: %s\n", w.question, oneLine(cut(c.Question, 600)), w.answer, cut(strings.TrimSpace(fence.Text(c.Answer)), 1200))
	case L2:
		fmt.Fprintf(&b, "%s\n%s\n", oneLine(cut(c.Question, 300)), cut(strings.TrimSpace(fence.Text(c.Answer)), 1500))
		if c.URL != "" {
			fmt.Fprintf(&b, "%s: %s\n", w.source, oneLine(c.URL))
		}
	case L3:
		fmt.Fprintf(&b, "%s: %s\n%s: %s\n", w.question, oneLine(cut(c.Question, 600)), w.wrong, oneLine(cut(c.Answer, 600)))
		if c.Reason != "" {
			fmt.Fprintf(&b, "%s: %s\n", w.why, oneLine(cut(c.Reason, 400)))
		}
	}
	return b.String()
}

// oneLine puts an entry's field on one line, fenced (fence.Inline), so it
// can neither break the block's layout nor close its fence.
func oneLine(s string) string { return fence.Inline(s) }

// dropTwins leaves out of a user's candidates the shared twin of an entry
// of their own (shareLesson): the two have one text and one embedding, so
// they come side by side, and the user's own is the one kept. (Every
// private candidate is the user's: ownOrShared.)
func dropTwins(cs []candidate) []candidate {
	own := map[int64]bool{}
	for _, c := range cs {
		if c.Visibility == "private" {
			own[c.ID] = true
		}
	}
	return slices.DeleteFunc(cs, func(c candidate) bool { return c.Visibility == "shared" && own[c.DerivedFrom] })
}
