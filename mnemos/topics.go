package mnemos

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"yakor"
	"yakor/history"
	"yakor/postgres"
	"yakor/words"
)

// Topic is a research topic: something the assistant should study.
type Topic struct {
	ID            int64      `json:"id"`
	Topic         string     `json:"topic"`
	Source        string     `json:"source"` // sufler, user or manual
	Status        string     `json:"status"` // pending, running, done or failed
	Attempts      int        `json:"attempts"`
	LastError     string     `json:"last_error"`
	NextAttemptAt *time.Time `json:"next_attempt_at"`
	// Fails counts the graded fails that point at it (0 for a topic added
	// by hand).
	Fails int `json:"fails"`
	// Visibility is "private" (a topic of its user's fails) or "shared"
	// (the tenant's: added by an admin).
	Visibility string    `json:"visibility"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// topicMeaning is the cosine similarity of two topics' embeddings at or
// above which they mean the same, whatever their wording.
const topicMeaning = 0.8

// addTopic returns the topic of the same owner (owner "": the tenant's
// shared ones) that means the same as topic (its wording similar, or its
// embedding near), counting one more fail for it, or adds topic for owner.
// The caller holds a transaction.
func (s *Store) addTopic(ctx context.Context, tx pgx.Tx, tenant, owner, topic, source string, space int32, vec pgvector.Vector) (id int64, created bool, err error) {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1::text, 7418534))`, tenant); err != nil {
		return 0, false, err
	}
	const q = `SELECT id, topic, CASE WHEN space_id = $2 THEN 1 - (embedding <=> $3) ELSE 0 END
FROM research_topics WHERE tenant_id = $1 AND user_id IS NOT DISTINCT FROM nullif($4, '')::uuid ORDER BY id DESC LIMIT 500`
	rows, err := tx.Query(ctx, q, tenant, space, vec, owner)
	if err != nil {
		return 0, false, err
	}
	var (
		match int64
		best  float64
	)
	sim := words.NewSimilarity()
	for rows.Next() {
		var (
			cand int64
			text string
			cos  float64
		)
		if err := rows.Scan(&cand, &text, &cos); err != nil {
			return 0, false, err
		}
		score := max(cos, 0)
		if cos < topicMeaning {
			score = 0
		}
		if w := sim(topic, text); w >= s.cfg.TopicThreshold {
			score = max(score, w)
		}
		if score > best {
			match, best = cand, score
		}
	}
	if err := rows.Err(); err != nil {
		return 0, false, err
	}
	fails := 1
	if source == "manual" {
		fails = 0
	}
	if match != 0 {
		// A fail counts once more; a topic asked for by hand again is
		// studied again if it had failed for good.
		const q = `UPDATE research_topics SET fails = fails + $3, updated_at = now(),
    status = CASE WHEN $3 = 0 AND status = 'failed' THEN 'pending' ELSE status END,
    attempts = CASE WHEN $3 = 0 AND status = 'failed' THEN 0 ELSE attempts END,
    next_attempt_at = CASE WHEN $3 = 0 AND status = 'failed' THEN now() ELSE next_attempt_at END
WHERE tenant_id = $1 AND id = $2`
		_, err := tx.Exec(ctx, q, tenant, match, fails)
		return match, false, err
	}
	const ins = `INSERT INTO research_topics (tenant_id, topic, source, fails, space_id, embedding, user_id, visibility)
VALUES ($1, $2, $3, $4, $5, $6, nullif($7, '')::uuid, CASE WHEN $7 = '' THEN 'shared' ELSE 'private' END) RETURNING id`
	err = tx.QueryRow(ctx, ins, tenant, topic, source, fails, space, vec, owner).Scan(&id)
	return id, err == nil, err
}

// AddTopic adds a research topic by hand, or returns the one that means the
// same (then created is false): private to scope's user, or the tenant's
// when scope names no user (an admin).
func (s *Store) AddTopic(ctx context.Context, scope yakor.Scope, topic string) (Topic, bool, error) {
	topic = strings.Join(strings.Fields(topic), " ")
	if topic == "" {
		return Topic{}, false, yakor.Errorf(yakor.EINVALID, "topic is empty")
	}
	if err := history.ValidText("topic", topic, MaxTopicChars); err != nil {
		return Topic{}, false, err
	}
	space, vec, err := s.space.EmbedOne(ctx, topic)
	if err != nil {
		return Topic{}, false, err
	}
	var (
		id      int64
		created bool
	)
	err = pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		id, created, err = s.addTopic(ctx, tx, scope.TenantID, scope.UserID, topic, "manual", space, vec)
		return err
	})
	if err != nil {
		return Topic{}, false, postgres.Wrap("add research topic", err)
	}
	ts, err := s.topics(ctx, scope, id, "", yakor.Page{Limit: 1})
	if err != nil || len(ts) == 0 {
		return Topic{}, false, err
	}
	return ts[0], created, nil
}

// Topics lists the research topics scope's user may see (its own and the
// tenant's; all of the tenant's when scope names no user), newest first;
// status "" means all.
func (s *Store) Topics(ctx context.Context, scope yakor.Scope, status string, page yakor.Page) ([]Topic, error) {
	switch status {
	case "", "pending", "running", "done", "failed":
	default:
		return nil, yakor.Errorf(yakor.EINVALID, "status must be pending, running, done or failed")
	}
	return s.topics(ctx, scope, 0, status, page)
}

func (s *Store) topics(ctx context.Context, scope yakor.Scope, id int64, status string, page yakor.Page) ([]Topic, error) {
	const q = `SELECT id, topic, source, status, attempts, last_error,
    CASE WHEN status IN ('pending', 'failed') THEN next_attempt_at END AS next_attempt_at, fails, visibility, created_at, updated_at
FROM research_topics WHERE tenant_id = $1 AND ($2 = 0 OR id = $2) AND ($3 = '' OR status = $3)
    AND ($5 = '' OR visibility = 'shared' OR user_id::text = $5) AND ($6 = 0 OR id < $6)
ORDER BY id DESC LIMIT $4`
	rows, err := s.db.Query(ctx, q, scope.TenantID, id, status, page.Size(), scope.UserID, page.Before)
	if err != nil {
		return nil, postgres.Wrap("list research topics", err)
	}
	ts, err := pgx.CollectRows(rows, pgx.RowToStructByName[Topic])
	if err != nil {
		return nil, postgres.Wrap("list research topics", err)
	}
	return ts, nil
}

// Fail is an answer graded <= 2, kept for research.
type Fail struct {
	ID                int64     `json:"id"`
	UserID            string    `json:"user_id"`
	ThreadID          string    `json:"thread_id"`
	QuestionMessageID int64     `json:"question_message_id,omitempty"`
	ReplyMessageID    int64     `json:"reply_message_id"`
	Question          string    `json:"question"`
	Answer            string    `json:"answer"`
	Score             int       `json:"score"`
	Reason            string    `json:"reason"`
	Source            string    `json:"source"`
	TopicID           int64     `json:"topic_id,omitempty"`
	Topic             string    `json:"topic"`
	CreatedAt         time.Time `json:"created_at"`
}

// Fails lists scope's user's graded fails (all of the tenant's when scope
// names no user), newest first: a fail holds the user's own question.
func (s *Store) Fails(ctx context.Context, scope yakor.Scope, page yakor.Page) ([]Fail, error) {
	const q = `SELECT f.id, f.user_id::text AS user_id, f.thread_id::text AS thread_id, coalesce(f.question_message_id, 0) AS question_message_id,
    f.reply_message_id, f.question, f.answer, f.score, f.reason, f.source, coalesce(f.topic_id, 0) AS topic_id, coalesce(t.topic, '') AS topic,
    f.created_at
FROM research_sufler_fails f LEFT JOIN research_topics t ON t.tenant_id = f.tenant_id AND t.id = f.topic_id
WHERE f.tenant_id = $1 AND ($3 = '' OR f.user_id::text = $3) AND ($4 = 0 OR f.id < $4) ORDER BY f.id DESC LIMIT $2`
	rows, err := s.db.Query(ctx, q, scope.TenantID, page.Size(), scope.UserID, page.Before)
	if err != nil {
		return nil, postgres.Wrap("list sufler fails", err)
	}
	fs, err := pgx.CollectRows(rows, pgx.RowToStructByName[Fail])
	if err != nil {
		return nil, postgres.Wrap("list sufler fails", err)
	}
	return fs, nil
}

// Grade is a stored grade of a reply.
type Grade struct {
	Source        string    `json:"source"` // model or user
	Score         int       `json:"score"`
	Reason        string    `json:"reason"`
	ResearchTopic string    `json:"research_topic,omitempty"`
	Grader        string    `json:"grader"`
	UpdatedAt     time.Time `json:"updated_at"`
}

// Grades returns the grades of a tenant's reply, the user's first.
func (s *Store) Grades(ctx context.Context, scope yakor.Scope, replyID int64) ([]Grade, error) {
	const q = `SELECT source, score, reason, research_topic, grader, updated_at FROM grades
WHERE tenant_id = $1 AND message_id = $2 ORDER BY source = 'user' DESC`
	rows, err := s.db.Query(ctx, q, scope.TenantID, replyID)
	if err != nil {
		return nil, postgres.Wrap("find grades", err)
	}
	gs, err := pgx.CollectRows(rows, pgx.RowToStructByName[Grade])
	if err != nil {
		return nil, postgres.Wrap("find grades", err)
	}
	return gs, nil
}
