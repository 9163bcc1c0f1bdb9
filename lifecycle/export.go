package lifecycle

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"yakor"
)

// Export is all of a user's data, as JSON-ready rows: the user, their
// threads with their messages, facts, anchors, private experiences, grades
// (the user's feedback and the grader's), research topics and fails.
type Export struct {
	User        map[string]any   `json:"user"`
	Threads     []map[string]any `json:"threads"` // each with "messages"
	Facts       []map[string]any `json:"facts"`
	Anchors     []map[string]any `json:"anchors"`
	Experiences []map[string]any `json:"experiences"`
	Grades      []map[string]any `json:"grades"`
	Fails       []map[string]any `json:"fails"`
	Topics      []map[string]any `json:"topics"`
}

// exportQueries read each part of a user's export: $1 tenant, $2 user.
var exportQueries = []struct {
	part string
	q    string
}{
	{"threads", `SELECT id::text AS id, title, system_prompt, external_key, project_id::text AS project_id, created_at, updated_at
FROM threads WHERE tenant_id = $1 AND user_id::text = $2 ORDER BY created_at, id`},
	{"messages", `SELECT id, thread_id::text AS thread_id, role, kind, content, created_at
FROM messages WHERE tenant_id = $1 AND user_id::text = $2 ORDER BY id`},
	{"facts", `SELECT id, scope, kind, slot, text, value, confidence, source, thread_id::text AS thread_id, project_id::text AS project_id,
    source_message_ids, valid_from, valid_to, closed_reason FROM facts WHERE tenant_id = $1 AND user_id::text = $2 ORDER BY id`},
	{"anchors", `SELECT id, thread_id::text AS thread_id, topic, data, message_id, merged_into, episode, first_at, last_at, created_at, updated_at
FROM microgoals WHERE tenant_id = $1 AND user_id::text = $2 ORDER BY id`},
	{"experiences", `SELECT id, level, topic, question, answer, reason, score, source, url, thread_id::text AS thread_id, visibility, created_at
FROM experiences WHERE tenant_id = $1 AND user_id::text = $2 ORDER BY id`},
	{"grades", `SELECT message_id, thread_id::text AS thread_id, source, score, reason, research_topic, updated_at
FROM grades WHERE tenant_id = $1 AND user_id::text = $2 ORDER BY message_id, source`},
	{"fails", `SELECT id, thread_id::text AS thread_id, reply_message_id, question, answer, score, reason, created_at
FROM research_sufler_fails WHERE tenant_id = $1 AND user_id::text = $2 ORDER BY id`},
	{"topics", `SELECT id, topic, status, visibility, created_at FROM research_topics WHERE tenant_id = $1 AND user_id::text = $2 ORDER BY id`},
}

// ExportUser returns all of userID's data in scope's tenant. ENOTFOUND: no
// such user.
func (s *Service) ExportUser(ctx context.Context, scope yakor.Scope, userID string) (Export, error) {
	var out Export
	rows, err := s.db.Query(ctx, `SELECT id::text AS id, name, external_id, created_at FROM users WHERE tenant_id = $1 AND id::text = $2`, scope.TenantID, userID)
	if err == nil {
		out.User, err = pgx.CollectExactlyOneRow(rows, pgx.RowToMap)
	}
	if err != nil {
		return Export{}, notFound("export user", err, userID)
	}
	parts := map[string]*[]map[string]any{
		"threads": &out.Threads, "facts": &out.Facts, "anchors": &out.Anchors, "experiences": &out.Experiences,
		"grades": &out.Grades, "fails": &out.Fails, "topics": &out.Topics,
	}
	var messages []map[string]any
	parts["messages"] = &messages
	for _, e := range exportQueries {
		rows, err := s.db.Query(ctx, e.q, scope.TenantID, userID)
		if err != nil {
			return Export{}, fmt.Errorf("export %s: %w", e.part, err)
		}
		got, err := pgx.CollectRows(rows, pgx.RowToMap)
		if err != nil {
			return Export{}, fmt.Errorf("export %s: %w", e.part, err)
		}
		*parts[e.part] = append([]map[string]any{}, got...)
	}
	byThread := map[any][]map[string]any{}
	for _, m := range messages {
		byThread[m["thread_id"]] = append(byThread[m["thread_id"]], m)
	}
	for _, th := range out.Threads {
		th["messages"] = append([]map[string]any{}, byThread[th["id"]]...)
	}
	return out, nil
}
