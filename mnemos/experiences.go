package mnemos

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"yakor"
	"yakor/history"
	"yakor/postgres"
)

// Levels of experience.
const (
	L1 = 1 // answers graded >= 4: examples
	L2 = 2 // research notes grouped by theme
	L3 = 3 // answers graded <= 2: antipatterns
)

// Sources of an experience.
const (
	SourceModel    = "model"    // the grader
	SourceUser     = "user"     // a user's thumbs up or down
	SourceManual   = "manual"   // added through the API
	SourceResearch = "research" // written by the research job
)

// Experience is one entry of a tenant's long-term memory.
type Experience struct {
	ID       int64  `json:"id"`
	Level    int    `json:"level"`
	Topic    string `json:"topic"`
	Question string `json:"question"` // L2: the article's title
	Answer   string `json:"answer"`   // L2: the study note
	Reason   string `json:"reason"`   // why it was graded so; L3: what was wrong
	Score    int    `json:"score,omitempty"`
	Source   string `json:"source"`
	URL      string `json:"url,omitempty"`
	// Visibility is "private" (its user's alone) or "shared" (the tenant's:
	// every user's prompt may recall it).
	Visibility string `json:"visibility"`
	// DerivedFrom is the private entry a shared one was made from (share).
	DerivedFrom int64 `json:"derived_from,omitempty"`
	// Provenance: where it came from.
	UserID            string  `json:"user_id,omitempty"`
	ThreadID          string  `json:"thread_id,omitempty"`
	QuestionMessageID int64   `json:"question_message_id,omitempty"`
	ReplyMessageID    int64   `json:"reply_message_id,omitempty"`
	SourceMessageIDs  []int64 `json:"source_message_ids"`
	// Merged counts the near-duplicates merged into it.
	Merged    int       `json:"merged"`
	Model     string    `json:"embedding_model,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Limits of an experience's text.
const (
	MaxQuestionChars = 20_000
	MaxAnswerChars   = 40_000
	MaxTopicChars    = 300
)

// validate checks an experience given by a caller.
func (x *Experience) validate() error {
	if x.Level < L1 || x.Level > L3 {
		return yakor.Errorf(yakor.EINVALID, "level must be 1, 2 or 3, not %d", x.Level)
	}
	x.Question, x.Answer, x.Topic = strings.TrimSpace(x.Question), strings.TrimSpace(x.Answer), strings.TrimSpace(x.Topic)
	for _, f := range []struct {
		name, text string
		max        int
		required   bool
	}{
		{"question", x.Question, MaxQuestionChars, true},
		{"answer", x.Answer, MaxAnswerChars, true},
		{"topic", x.Topic, MaxTopicChars, false},
		{"reason", x.Reason, MaxTopicChars * 10, false},
		{"url", x.URL, 2000, false},
	} {
		if f.required && f.text == "" {
			return yakor.Errorf(yakor.EINVALID, "%s is empty", f.name)
		}
		if err := history.ValidText(f.name, f.text, f.max); err != nil {
			return err
		}
	}
	return nil
}

// embedText is what an experience is found by: a new message is compared
// with past questions (L1, L3) or with a note's theme and title (L2): a
// question resembles a note's subject more than its body. Reembed uses the
// same rule in SQL.
func embedText(x Experience) string {
	if x.Level == L2 {
		return x.Topic + "\n" + x.Question
	}
	return x.Question
}

// cut shortens s to n runes.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

const experienceColumns = `e.id, e.level, e.topic, e.question, e.answer, e.reason, coalesce(e.score, 0), e.source, e.url,
coalesce(e.user_id::text, ''), coalesce(e.thread_id::text, ''), coalesce(e.question_message_id, 0), coalesce(e.reply_message_id, 0),
e.source_message_ids, e.merged, coalesce(s.provider || ':' || s.model, ''), e.visibility, coalesce(e.derived_from, 0), e.created_at, e.updated_at`

// visible3 and visible5 are the condition that an experience e is one a
// caller may see and change, the caller's user id being the query's
// parameter $3 or $5: its own entries and the tenant's shared ones, or
// every entry of the tenant for a caller without a user (an admin, a job);
// a shared twin (shareLesson) is left out where its private original is
// seen.
const (
	visible3 = `(($3 = '' OR e.user_id::text = $3) AND e.visibility = 'private' OR e.visibility = 'shared' AND NOT ` + twinOf3 + `)`
	visible5 = `(($5 = '' OR e.user_id::text = $5) AND e.visibility = 'private' OR e.visibility = 'shared' AND NOT ` + twinOf5 + `)`
	twinOf3  = `EXISTS (SELECT 1 FROM experiences p WHERE p.tenant_id = e.tenant_id AND p.id = e.derived_from AND ($3 = '' OR p.user_id::text = $3))`
	twinOf5  = `EXISTS (SELECT 1 FROM experiences p WHERE p.tenant_id = e.tenant_id AND p.id = e.derived_from AND ($5 = '' OR p.user_id::text = $5))`
)

func scanExperience(r pgx.CollectableRow) (Experience, error) {
	var x Experience
	err := r.Scan(&x.ID, &x.Level, &x.Topic, &x.Question, &x.Answer, &x.Reason, &x.Score, &x.Source, &x.URL,
		&x.UserID, &x.ThreadID, &x.QuestionMessageID, &x.ReplyMessageID, &x.SourceMessageIDs, &x.Merged, &x.Model,
		&x.Visibility, &x.DerivedFrom, &x.CreatedAt, &x.UpdatedAt)
	return x, err
}

// ExperienceFilter narrows Experiences.
type ExperienceFilter struct {
	Level  int   // 0: all levels
	Limit  int   // 0: 100
	Before int64 // only ids below it (paging); 0: from the newest
}

// Experiences lists the experiences scope's user may see (its own and the
// tenant's shared ones; all of the tenant's when scope names no user),
// newest first.
func (s *Store) Experiences(ctx context.Context, scope yakor.Scope, f ExperienceFilter) ([]Experience, error) {
	if f.Level < 0 || f.Level > L3 {
		return nil, yakor.Errorf(yakor.EINVALID, "level must be 1, 2 or 3")
	}
	if f.Limit <= 0 || f.Limit > 1000 {
		f.Limit = 100
	}
	const q = `SELECT ` + experienceColumns + ` FROM experiences e LEFT JOIN embed_spaces s ON s.id = e.space_id
WHERE e.tenant_id = $1 AND ($2 = 0 OR e.level = $2) AND ($3 = 0 OR e.id < $3) AND ` + visible5 + `
ORDER BY e.id DESC LIMIT $4`
	rows, err := s.db.Query(ctx, q, scope.TenantID, f.Level, f.Before, f.Limit, scope.UserID)
	if err != nil {
		return nil, postgres.Wrap("list experiences", err)
	}
	xs, err := pgx.CollectRows(rows, scanExperience)
	if err != nil {
		return nil, postgres.Wrap("list experiences", err)
	}
	return xs, nil
}

// Experience returns one of the experiences scope's user may see;
// another user's private one is ENOTFOUND.
func (s *Store) Experience(ctx context.Context, scope yakor.Scope, id int64) (Experience, error) {
	return s.experience(ctx, scope, id, visible3)
}

// experience returns one of the tenant's experiences that meets visible, a
// condition on $3, scope's user.
func (s *Store) experience(ctx context.Context, scope yakor.Scope, id int64, visible string) (Experience, error) {
	q := `SELECT ` + experienceColumns + ` FROM experiences e LEFT JOIN embed_spaces s ON s.id = e.space_id
WHERE e.tenant_id = $1 AND e.id = $2 AND ` + visible
	rows, err := s.db.Query(ctx, q, scope.TenantID, id, scope.UserID)
	if err != nil {
		return Experience{}, postgres.Wrap("find experience", err)
	}
	x, err := pgx.CollectExactlyOneRow(rows, scanExperience)
	if err != nil {
		return Experience{}, postgres.NotFound("find experience", err, yakor.Errorf(yakor.ENOTFOUND, "experience %d not found", id))
	}
	return x, nil
}

// DeleteExperience deletes one of the experiences scope's user may see
// and change; another user's private one is ENOTFOUND.
func (s *Store) DeleteExperience(ctx context.Context, scope yakor.Scope, id int64) error {
	tag, err := s.db.Exec(ctx, `DELETE FROM experiences e WHERE e.tenant_id = $1 AND e.id = $2 AND `+visible3, scope.TenantID, id, scope.UserID)
	if err != nil {
		return postgres.Wrap("delete experience", err)
	}
	if tag.RowsAffected() == 0 {
		return yakor.Errorf(yakor.ENOTFOUND, "experience %d not found", id)
	}
	return nil
}

// AddExperience stores an experience written by hand (SourceManual) or by
// the research job (SourceResearch). A near-duplicate of an entry of the
// same level is merged into it: the returned experience is that entry.
func (s *Store) AddExperience(ctx context.Context, scope yakor.Scope, x Experience) (Experience, bool, error) {
	if x.Source == "" {
		x.Source = SourceManual
	}
	if x.Source != SourceManual && x.Source != SourceResearch {
		return Experience{}, false, yakor.Errorf(yakor.EINVALID, "source must be manual or research")
	}
	// A user's own note is private; an admin's (a scope without a user)
	// and the research job's notes from public pages are the tenant's.
	x.UserID = ""
	if x.Source == SourceManual {
		x.UserID = scope.UserID
	}
	if err := x.validate(); err != nil {
		return Experience{}, false, err
	}
	space, vec, err := s.space.EmbedOne(ctx, embedText(x))
	if err != nil {
		return Experience{}, false, err
	}
	var id int64
	var merged bool
	err = pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		id, merged, err = s.insert(ctx, tx, scope, x, space, vec)
		return err
	})
	if err != nil {
		return Experience{}, false, postgres.Wrap("add experience", err)
	}
	out, err := s.Experience(ctx, scope, id)
	return out, merged, err
}

// insert stores x or merges it into a near-duplicate of the same level and
// space (cosine similarity at least the merge threshold), under a lock per
// tenant and level so two concurrent writers cannot both add one. It
// returns the row's id and whether it merged.
func (s *Store) insert(ctx context.Context, tx pgx.Tx, scope yakor.Scope, x Experience, space int32, vec pgvector.Vector) (int64, bool, error) {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1::text || ':' || $2::int, 7418532))`, scope.TenantID, x.Level); err != nil {
		return 0, false, err
	}
	var replies []int64
	if x.ReplyMessageID != 0 {
		replies = []int64{x.ReplyMessageID}
	}
	var (
		dup neighbour
		ok  bool
		err error
	)
	if x.Level == L2 && x.URL != "" {
		// Notes are found by theme and title, which two articles on one
		// theme may share: a note repeats another only when it is of the
		// same page.
		err = tx.QueryRow(ctx, `SELECT id, 1 FROM experiences WHERE tenant_id = $1 AND level = 2 AND url = $2 AND user_id IS NOT DISTINCT FROM nullif($3, '')::uuid LIMIT 1`,
			scope.TenantID, x.URL, x.UserID).Scan(&dup.id, &dup.similarity)
		ok, err = postgres.Found("find note of the page", err)
	} else {
		dup, ok, err = s.nearest(ctx, tx, scope.TenantID, x.UserID, x.Level, space, vec)
	}
	if err != nil {
		return 0, false, err
	}
	if ok && dup.similarity >= s.cfg.MergeThreshold {
		const q = `UPDATE experiences SET merged = merged + 1, updated_at = now(),
    source_message_ids = source_message_ids || $3::bigint[],
    score = CASE WHEN $4::smallint IS NULL THEN score WHEN score IS NULL THEN $4 WHEN $5 = 3 THEN least(score, $4) ELSE greatest(score, $4) END
WHERE tenant_id = $1 AND id = $2`
		if _, err := tx.Exec(ctx, q, scope.TenantID, dup.id, replies, nullScore(x.Score), x.Level); err != nil {
			return 0, false, err
		}
		s.metrics.merged(x.Level)
		return dup.id, true, nil
	}
	const q = `INSERT INTO experiences (tenant_id, level, topic, question, answer, reason, score, source, url,
    user_id, thread_id, question_message_id, reply_message_id, source_message_ids, space_id, embedding, visibility, derived_from)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, nullif($10, '')::uuid, nullif($11, '')::uuid, nullif($12, 0), nullif($13, 0), $14, $15, $16,
    CASE WHEN $10 = '' THEN 'shared' ELSE 'private' END, nullif($17, 0))
RETURNING id`
	var id int64
	err = tx.QueryRow(ctx, q, scope.TenantID, x.Level, x.Topic, x.Question, x.Answer, x.Reason, nullScore(x.Score), x.Source, x.URL,
		x.UserID, x.ThreadID, x.QuestionMessageID, x.ReplyMessageID, coalesceIDs(replies), space, vec, x.DerivedFrom).Scan(&id)
	if err != nil {
		return 0, false, err
	}
	s.metrics.wrote(x.Level)
	s.forgetSize(scope.TenantID, x.Level, space)
	return id, false, nil
}

type neighbour struct {
	id         int64
	similarity float64
}

// nearest finds the entry of level nearest to vec in the tenant's space
// among those of the same owner (owner "": the tenant's shared ones): an
// entry merges only into one of its own owner.
func (s *Store) nearest(ctx context.Context, db DB, tenant, owner string, level int, space int32, vec pgvector.Vector) (neighbour, bool, error) {
	size, err := s.size(ctx, db, tenant, level, space)
	if err != nil {
		return neighbour{}, false, err
	}
	rows, err := db.Query(ctx, recallSQL(space, len(vec.Slice()), level, size.exact(), sameOwner), tenant, vec, 1, owner)
	if err != nil {
		return neighbour{}, false, err
	}
	cs, err := pgx.CollectRows(rows, scanCandidate)
	if err != nil || len(cs) == 0 {
		return neighbour{}, false, err
	}
	return neighbour{id: cs[0].ID, similarity: cs[0].similarity}, true, nil
}

// exactBelow is the size of a tenant's level below which its nearest
// entries may be found by an exact scan: when the tenant holds a small
// share of the level's HNSW index, the planner cannot tell how far a
// filtered walk must go to find its rows, and picks it where the exact scan
// is ten times faster. A tenant that is most of the index walks it well.
const (
	exactBelow = 5000
	exactTiny  = 500 // this few rows are scanned exactly in any case
)

type sizeEntry struct {
	n, total int
	at       time.Time
}

// size returns the sizes of a tenant's level in a space (counted up to
// what exactBelow needs) and of the level's HNSW index in all tenants,
// cached for a minute; an empty level for emptyFor, unless this store
// adds to it meanwhile (forgetSize): recall skips a memory found empty,
// so an entry another process adds is recalled at most emptyFor late.
// The index's size is the planner's estimate (pg_class.reltuples): a
// count would see only the tenant's rows under row-level security, and
// would fan out to every shard on Citus, where the coordinator's estimate
// is 0 (its shards' indexes are the workers').
func (s *Store) size(ctx context.Context, db DB, tenant string, level int, space int32) (sizeEntry, error) {
	key := sizeKey(tenant, level, space)
	e, ok := s.sizes.Load(key)
	if !ok || time.Since(e.(sizeEntry).at) >= e.(sizeEntry).ttl() {
		var n, total int
		err := db.QueryRow(ctx, `SELECT
    (SELECT count(*) FROM (SELECT 1 FROM experiences WHERE tenant_id = $1 AND level = $2 AND space_id = $3 LIMIT $4) x),
    coalesce((SELECT greatest(reltuples, 0)::bigint FROM pg_class WHERE oid = to_regclass($5)), 0)`,
			tenant, level, space, exactBelow, vecIndex(space, level)).Scan(&n, &total)
		if err != nil {
			return sizeEntry{}, err
		}
		e = sizeEntry{n: n, total: total, at: time.Now()}
		s.sizes.Store(key, e)
	}
	return e.(sizeEntry), nil
}

// emptyFor is how long a level found empty is taken for empty.
const emptyFor = 5 * time.Second

// ttl is how long the entry is taken for the level's size.
func (se sizeEntry) ttl() time.Duration {
	if se.n == 0 {
		return emptyFor
	}
	return time.Minute
}

// forgetSize drops the cached size of a tenant's level in a space, which
// an entry was just written to.
func (s *Store) forgetSize(tenant string, level int, space int32) {
	s.sizes.Delete(sizeKey(tenant, level, space))
}

func sizeKey(tenant string, level int, space int32) string {
	return fmt.Sprintf("%s:%d:%d", tenant, level, space)
}

// exact reports whether the tenant's entries of the level are best scanned
// exactly (see exactBelow).
func (se sizeEntry) exact() bool {
	return se.n < exactTiny || se.n < exactBelow && se.n*10 < se.total
}

func nullScore(n int) *int16 {
	if n == 0 {
		return nil
	}
	v := int16(n)
	return &v
}

func coalesceIDs(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}
