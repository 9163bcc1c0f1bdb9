package likbez

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/postgres"
)

// Article is a stored study note.
type Article struct {
	ID           int64     `json:"id"`
	TopicID      int64     `json:"topic_id"`
	Topic        string    `json:"topic"` // the theme it is filed under
	URL          string    `json:"url"`
	Title        string    `json:"title"`
	Note         string    `json:"note"`
	ExperienceID int64     `json:"experience_id,omitempty"`
	FetchedAt    time.Time `json:"fetched_at"`
}

// Articles lists a tenant's research articles, newest first; topicID 0
// means every topic's.
func (s *Service) Articles(ctx context.Context, scope yakor.Scope, topicID int64, page yakor.Page) ([]Article, error) {
	// An article is a note from a public page, but its theme is its
	// topic's words: listed with the topics the caller may see.
	const q = `SELECT a.id, a.topic_id, a.theme AS topic, a.url, a.title, a.note, coalesce(a.experience_id, 0) AS experience_id, a.fetched_at
FROM research_articles a JOIN research_topics t ON t.tenant_id = a.tenant_id AND t.id = a.topic_id
WHERE a.tenant_id = $1 AND ($2 = 0 OR a.topic_id = $2) AND ($3 = '' OR t.visibility = 'shared' OR t.user_id::text = $3)
  AND ($5 = 0 OR a.id < $5)
ORDER BY a.id DESC LIMIT $4`
	rows, err := s.db.Query(ctx, q, scope.TenantID, topicID, scope.UserID, page.Size(), page.Before)
	if err != nil {
		return nil, postgres.Wrap("list research articles", err)
	}
	as, err := pgx.CollectRows(rows, pgx.RowToStructByName[Article])
	if err != nil {
		return nil, postgres.Wrap("list research articles", err)
	}
	return as, nil
}

// Status is the research job's state, as a tenant sees it.
type Status struct {
	// SourceConfigured tells whether a SearXNG instance is configured.
	SourceConfigured bool   `json:"source_configured"`
	Message          string `json:"message,omitempty"`
	// Running tells whether a run is going on now.
	Running bool `json:"running"`
	// LastRun is when the latest run started and finished, and how.
	LastRun *RunInfo `json:"last_run"`
	// Topics counts the tenant's topics by status.
	Topics map[string]int `json:"topics"`
}

// RunInfo is a run as a tenant sees it: when and how it went, not what it
// did for other tenants.
type RunInfo struct {
	ID         int64      `json:"id"`
	Trigger    string     `json:"trigger"`
	Status     string     `json:"status"`
	StartedAt  time.Time  `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at"`
}

// Status reports the research job's state for scope's tenant.
func (s *Service) Status(ctx context.Context, scope yakor.Scope) (Status, error) {
	st := Status{SourceConfigured: s.source != nil, Topics: map[string]int{"pending": 0, "running": 0, "done": 0, "failed": 0}}
	if s.source == nil {
		st.Message = NoSource
	}
	var run RunInfo
	err := s.pool.QueryRow(ctx, `SELECT id, trigger, status, started_at, finished_at FROM research_runs ORDER BY id DESC LIMIT 1`).
		Scan(&run.ID, &run.Trigger, &run.Status, &run.StartedAt, &run.FinishedAt)
	ran, err := postgres.Found("research status", err)
	if err != nil {
		return Status{}, err
	}
	if ran {
		st.LastRun = &run
	}
	var locked bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid::bigint = $1 AND granted)`, runLock).Scan(&locked); err != nil {
		return Status{}, postgres.Wrap("research status", err)
	}
	st.Running = locked
	counts, err := s.topics.Counts(ctx, scope)
	if err != nil {
		return Status{}, fmt.Errorf("research status: %w", err)
	}
	maps.Copy(st.Topics, counts)
	return st, nil
}
