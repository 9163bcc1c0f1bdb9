package mnemos

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"yakor"
	"yakor/postgres"
)

// Graded is a reply with its grade, ready to be routed.
type Graded struct {
	Scope             yakor.Scope // tenant, user and thread of the reply
	QuestionMessageID int64
	ReplyMessageID    int64
	Question          string
	Answer            string
	Score             int    // 1..5
	Reason            string // why
	ResearchTopic     string // what to study, for a score <= 2
	Topic             string // the conversation's topic, for the experience
	Grader            string // "offline", a model's name, or "user"
	Source            string // SourceModel or SourceUser
	// Canned marks a reply that is no one's answer: the offline model's,
	// which quotes the conversation back. Its grade is kept, and nothing
	// of it enters long-term memory (no example, warning or topic).
	Canned bool
}

// Routed says where a grade went.
type Routed struct {
	// Level is the experience level written (or merged into), 0 for none.
	Level        int   `json:"level"`
	ExperienceID int64 `json:"experience_id,omitempty"`
	Merged       bool  `json:"merged"`
	TopicID      int64 `json:"topic_id,omitempty"` // the research topic fed, for a fail
	// Skipped reports a grade that changed nothing: a retry of the same
	// grade, or the model's grade of a reply the user has graded.
	Skipped bool `json:"skipped"`
}

// Route stores a reply's grade and routes it: >= 4 to L1, <= 2 to L3, to
// research_sufler_fails and to a research topic (merged with a topic of
// the same meaning), 3 nowhere. A user's grade outranks the model's: it
// replaces whatever the model's grade had routed, and a later model grade
// of the same reply is stored but routes nothing. Routing the same grade
// twice (a retried job) writes nothing the second time; a changed grade
// first removes what the earlier one wrote.
func (s *Store) Route(ctx context.Context, g Graded) (Routed, error) {
	if g.Score < 1 || g.Score > 5 {
		return Routed{}, yakor.Errorf(yakor.EINVALID, "score must be 1..5, not %d", g.Score)
	}
	if g.Source != SourceModel && g.Source != SourceUser {
		return Routed{}, yakor.Errorf(yakor.EINVALID, "grade source must be model or user")
	}
	g.Question, g.Answer = cut(g.Question, MaxQuestionChars), cut(g.Answer, MaxAnswerChars)
	g.Topic, g.ResearchTopic = cut(strings.TrimSpace(g.Topic), MaxTopicChars), cut(strings.TrimSpace(g.ResearchTopic), MaxTopicChars)
	if g.ResearchTopic == "" {
		g.ResearchTopic = g.Topic
	}
	if g.ResearchTopic == "" {
		g.ResearchTopic = cut(strings.Join(strings.Fields(g.Question), " "), 80)
	}
	// Vectors come first: an embedding model is a network call, kept out
	// of the transaction.
	var (
		space    int32
		vec      pgvector.Vector
		topicVec pgvector.Vector
		err      error
	)
	if band(g.Score) != 0 && !g.Canned {
		texts := []string{g.Question, g.ResearchTopic}
		var vs []pgvector.Vector
		space, vs, err = s.space.Embed(ctx, texts)
		if err != nil {
			return Routed{}, fmt.Errorf("route grade: %w", err)
		}
		vec, topicVec = vs[0], vs[1]
	}
	var r Routed
	err = pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		var err error
		r, err = s.route(ctx, tx, g, space, vec, topicVec)
		return err
	})
	if err != nil {
		return Routed{}, postgres.Wrap("route grade", err)
	}
	if !r.Skipped {
		s.metrics.graded(g.Score, g.Source)
	}
	return r, nil
}

func (s *Store) route(ctx context.Context, tx pgx.Tx, g Graded, space int32, vec, topicVec pgvector.Vector) (Routed, error) {
	sc := g.Scope
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1::text || ':' || $2::bigint, 7418533))`, sc.TenantID, g.ReplyMessageID); err != nil {
		return Routed{}, err
	}
	prev := map[string]int{}
	rows, err := tx.Query(ctx, `SELECT source, score FROM grades WHERE tenant_id = $1 AND message_id = $2`, sc.TenantID, g.ReplyMessageID)
	if err != nil {
		return Routed{}, err
	}
	for rows.Next() {
		var src string
		var score int
		if err := rows.Scan(&src, &score); err != nil {
			return Routed{}, err
		}
		prev[src] = score
	}
	if err := rows.Err(); err != nil {
		return Routed{}, err
	}
	const upsert = `INSERT INTO grades (tenant_id, user_id, thread_id, message_id, source, score, reason, research_topic, grader)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
ON CONFLICT (tenant_id, message_id, source) DO UPDATE SET score = excluded.score, reason = excluded.reason,
    research_topic = excluded.research_topic, grader = excluded.grader, updated_at = excluded.updated_at`
	if _, err := tx.Exec(ctx, upsert, sc.TenantID, sc.UserID, sc.ThreadID, g.ReplyMessageID, g.Source, g.Score, g.Reason, g.ResearchTopic, g.Grader); err != nil {
		return Routed{}, err
	}
	old, had := prev[g.Source]
	if _, userGraded := prev[SourceUser]; g.Source == SourceModel && userGraded {
		return Routed{Skipped: true}, nil
	}
	if had && band(old) == band(g.Score) {
		return Routed{Skipped: true}, nil
	}
	if err := unroute(ctx, tx, sc.TenantID, g.ReplyMessageID); err != nil {
		return Routed{}, err
	}
	if g.Canned {
		return Routed{}, nil
	}
	x := Experience{
		Topic: g.Topic, Question: g.Question, Answer: g.Answer, Reason: g.Reason, Score: g.Score, Source: g.Source,
		UserID: sc.UserID, ThreadID: sc.ThreadID, QuestionMessageID: g.QuestionMessageID, ReplyMessageID: g.ReplyMessageID,
	}
	var r Routed
	switch {
	case g.Score >= 4:
		x.Level = L1
	case g.Score <= 2:
		x.Level, x.Topic = L3, g.ResearchTopic
		r.TopicID, _, err = s.addTopic(ctx, tx, sc.TenantID, sc.UserID, g.ResearchTopic, "sufler", space, topicVec)
		if err != nil {
			return Routed{}, err
		}
		const fail = `INSERT INTO research_sufler_fails (tenant_id, user_id, thread_id, question_message_id, reply_message_id,
    question, answer, score, reason, source, topic_id)
VALUES ($1, $2, $3, nullif($4, 0), $5, $6, $7, $8, $9, $10, $11)`
		if _, err := tx.Exec(ctx, fail, sc.TenantID, sc.UserID, sc.ThreadID, g.QuestionMessageID, g.ReplyMessageID,
			g.Question, g.Answer, g.Score, g.Reason, g.Source, r.TopicID); err != nil {
			return Routed{}, err
		}
	default:
		return r, nil
	}
	r.Level = x.Level
	r.ExperienceID, r.Merged, err = s.insert(ctx, tx, sc, x, space, vec)
	if err != nil {
		return r, err
	}
	return r, s.shareLesson(ctx, tx, sc, x, r.ExperienceID, space, vec)
}

// shareLesson keeps tenant-wide learning: a lesson from a user's
// conversation is private to them, and is shared as the tenant's too only
// when it holds no personal data (facts.Personal: no number of more than
// two digits, e-mail, phone, URL with a query, or name). The shared copy
// carries the reply in its sources, so a changed grade takes it back as it
// takes back the private one.
func (s *Store) shareLesson(ctx context.Context, tx pgx.Tx, sc yakor.Scope, x Experience, from int64, space int32, vec pgvector.Vector) error {
	if _, personal := x.personal(); personal {
		return nil
	}
	shared := x
	shared.UserID, shared.ThreadID, shared.QuestionMessageID, shared.DerivedFrom = "", "", 0, from
	_, _, err := s.insert(ctx, tx, sc, shared, space, vec)
	return err
}

// band is where a score routes: 1 (L1), 3 (L3) or 0 (nowhere).
func band(score int) int {
	switch {
	case score >= 4:
		return L1
	case score <= 2:
		return L3
	}
	return 0
}

// unroute removes what an earlier grade of reply wrote: its share of the
// experiences (an entry that stood for it alone is deleted) and its fail.
func unroute(ctx context.Context, tx pgx.Tx, tenant string, reply int64) error {
	const q = `UPDATE experiences SET source_message_ids = array_remove(source_message_ids, $2), updated_at = now(),
    merged = greatest(cardinality(source_message_ids) - 2, 0)
WHERE tenant_id = $1 AND source_message_ids @> ARRAY[$2::bigint] AND source IN ('model', 'user')
RETURNING id, cardinality(source_message_ids) = 0`
	rows, err := tx.Query(ctx, q, tenant, reply)
	if err != nil {
		return err
	}
	var empty []int64
	for rows.Next() {
		var id int64
		var none bool
		if err := rows.Scan(&id, &none); err != nil {
			return err
		}
		if none {
			empty = append(empty, id)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(empty) > 0 {
		if _, err := tx.Exec(ctx, `DELETE FROM experiences WHERE tenant_id = $1 AND id = ANY($2)`, tenant, empty); err != nil {
			return err
		}
	}
	const fails = `
WITH gone AS (
    DELETE FROM research_sufler_fails WHERE tenant_id = $1 AND reply_message_id = $2 RETURNING topic_id
)
UPDATE research_topics t SET fails = greatest(fails - 1, 0), updated_at = now()
FROM gone WHERE t.tenant_id = $1 AND t.id = gone.topic_id`
	_, err = tx.Exec(ctx, fails, tenant, reply)
	return err
}
