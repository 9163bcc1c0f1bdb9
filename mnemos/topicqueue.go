package mnemos

import (
	"context"
	"time"

	"yakor"
	"yakor/postgres"
)

// TopicQueue is the research job's side of research_topics: it claims the
// topics that are due, every tenant's, and records how their research
// went (status, attempts, last error, next attempt). Route and AddTopic add
// the topics; likbez works the queue through it.
type TopicQueue struct {
	owner DB // sees every tenant: a run works them all
	db    DB // one tenant's reads
}

// NewTopicQueue returns the queue: owner's pool sees every tenant's topics
// (a run's claims and settlements), db is one tenant's (the service role's
// pool, which the database holds to the context's tenant; or owner again).
func NewTopicQueue(owner, db DB) *TopicQueue {
	return &TopicQueue{owner: owner, db: db}
}

// DueTopic is a claimed research topic.
type DueTopic struct {
	TenantID string
	ID       int64
	Topic    string
	Attempts int // this one included
}

// Requeue makes every topic left running pending again: the caller holds
// the research run's lock, so a topic still running was cut off with its
// run.
func (q *TopicQueue) Requeue(ctx context.Context) error {
	_, err := q.owner.Exec(ctx, `UPDATE research_topics SET status = 'pending', updated_at = now() WHERE status = 'running'`)
	return postgres.Wrap("requeue research topics", err)
}

// Claim takes the next topic that is due, any tenant's: pending, or failed
// with its next attempt come, oldest due first. It marks it running and
// counts the attempt; ok is false when none is due.
func (q *TopicQueue) Claim(ctx context.Context) (t DueTopic, ok bool, err error) {
	const sql = `UPDATE research_topics t SET status = 'running', attempts = attempts + 1, updated_at = now()
FROM (
    SELECT tenant_id, id FROM research_topics
    WHERE status IN ('pending', 'failed') AND next_attempt_at <= now()
    ORDER BY next_attempt_at, id LIMIT 1 FOR UPDATE SKIP LOCKED
) due
WHERE t.tenant_id = due.tenant_id AND t.id = due.id
RETURNING t.tenant_id::text, t.id, t.topic, t.attempts`
	err = q.owner.QueryRow(ctx, sql).Scan(&t.TenantID, &t.ID, &t.Topic, &t.Attempts)
	if ok, err = postgres.Found("claim research topic", err); !ok {
		return DueTopic{}, false, err
	}
	return t, true, nil
}

// Done records that a topic was studied.
func (q *TopicQueue) Done(ctx context.Context, tenant string, id int64) error {
	_, err := q.owner.Exec(ctx, `UPDATE research_topics SET status = 'done', last_error = '', updated_at = now()
WHERE tenant_id = $1 AND id = $2`, tenant, id)
	return postgres.Wrap("research topic done", err)
}

// Failed records that a topic's research failed for reason; next is its
// next attempt (nil: none, it failed for good).
func (q *TopicQueue) Failed(ctx context.Context, tenant string, id int64, reason string, next *time.Time) error {
	_, err := q.owner.Exec(ctx, `UPDATE research_topics SET status = 'failed', last_error = $3, next_attempt_at = $4, updated_at = now()
WHERE tenant_id = $1 AND id = $2`, tenant, id, reason, next)
	return postgres.Wrap("research topic failed", err)
}

// Pending counts the topics waiting for research, every tenant's.
func (q *TopicQueue) Pending(ctx context.Context) (int, error) {
	var n int
	err := q.owner.QueryRow(ctx, `SELECT count(*) FROM research_topics WHERE status = 'pending'`).Scan(&n)
	return n, postgres.Wrap("count pending research topics", err)
}

// Counts counts the topics scope's user may see (its own and the tenant's;
// all of the tenant's when scope names no user) by status; a status without topics
// is left out.
func (q *TopicQueue) Counts(ctx context.Context, scope yakor.Scope) (map[string]int, error) {
	rows, err := q.db.Query(ctx, `SELECT status, count(*) FROM research_topics
WHERE tenant_id = $1 AND ($2 = '' OR visibility = 'shared' OR user_id::text = $2) GROUP BY status`, scope.TenantID, scope.UserID)
	if err != nil {
		return nil, postgres.Wrap("count research topics", err)
	}
	out := map[string]int{}
	for rows.Next() {
		var status string
		var n int
		if err := rows.Scan(&status, &n); err != nil {
			rows.Close()
			return nil, postgres.Wrap("count research topics", err)
		}
		out[status] = n
	}
	return out, postgres.Wrap("count research topics", rows.Err())
}
