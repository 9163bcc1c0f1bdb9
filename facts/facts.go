package facts

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/history"
	"yakor/postgres"
)

// Fact is a durable fact kept for a chat, a user or a user's project.
type Fact struct {
	ID               int64      `json:"id"`
	Scope            string     `json:"scope"`
	Kind             string     `json:"kind"`
	Slot             string     `json:"slot,omitempty"`
	Text             string     `json:"text"`
	Value            string     `json:"value,omitempty"`
	Confidence       float64    `json:"confidence"`
	Source           string     `json:"source"` // extractor or user
	ThreadID         string     `json:"thread_id,omitempty"`
	ProjectID        string     `json:"project_id,omitempty"`
	SourceMessageIDs []int64    `json:"source_message_ids"`
	ValidFrom        time.Time  `json:"valid_from"`
	ValidTo          *time.Time `json:"valid_to"`
	SupersededBy     int64      `json:"superseded_by,omitempty"`
	ClosedReason     string     `json:"closed_reason,omitempty"`
	LastUsedAt       time.Time  `json:"last_used_at"`
	CreatedAt        time.Time  `json:"created_at"`
}

// MaxChars bounds a fact's text.
const MaxChars = 2000

const factColumns = `id, scope, kind, slot, text, value, confidence, source, coalesce(thread_id::text, ''), coalesce(project_id::text, ''),
source_message_ids, valid_from, valid_to, coalesce(superseded_by, 0), closed_reason, last_used_at, created_at`

func scanFact(r pgx.CollectableRow) (Fact, error) {
	var f Fact
	var conf float32
	err := r.Scan(&f.ID, &f.Scope, &f.Kind, &f.Slot, &f.Text, &f.Value, &conf, &f.Source, &f.ThreadID, &f.ProjectID,
		&f.SourceMessageIDs, &f.ValidFrom, &f.ValidTo, &f.SupersededBy, &f.ClosedReason, &f.LastUsedAt, &f.CreatedAt)
	f.Confidence = float64(conf)
	return f, err
}

// threadProject returns the project of scope's thread ("" for the user's
// default project); ENOTFOUND when the thread is not the user's.
func threadProject(ctx context.Context, db DB, scope yakor.Scope) (string, error) {
	return history.NewStore(db).ThreadProject(ctx, scope)
}

// visibleSQL selects the current facts a thread sees: its chat facts, its
// user's facts and the user's facts of the thread's project. $1 tenant, $2
// user, $3 thread, $4 project (” : the default project).
var visibleSQL = visibleSQLOf(`nullif($4, '')::uuid`)

// visibleSQLOf is visibleSQL with the thread's project given by project,
// an expression.
func visibleSQLOf(project string) string {
	return `SELECT ` + factColumns + ` FROM facts
WHERE tenant_id = $1 AND user_id = $2 AND valid_to IS NULL AND (
    (scope = 'chat' AND thread_id = $3) OR scope = 'user'
    OR (scope = 'project' AND project_id IS NOT DISTINCT FROM ` + project + `))`
}

// Visible returns the current facts scope's thread sees, by scope (chat,
// user, project), most recently used first. The thread's project is read
// in the same round trip (ENOTFOUND when the thread is not the user's).
func (s *Store) Visible(ctx context.Context, scope yakor.Scope) ([]Fact, error) {
	b := &pgx.Batch{}
	read := queueVisible(b, scope)
	br := s.db.SendBatch(ctx, b)
	fs, err := read(br)
	if cerr := br.Close(); err == nil {
		err = postgres.Wrap("list visible facts", cerr)
	}
	return fs, err
}

// queueVisible queues Visible's reads in b and returns what reads their
// results, in b's order.
func queueVisible(b *pgx.Batch, scope yakor.Scope) func(pgx.BatchResults) ([]Fact, error) {
	project := history.QueueThreadProject(b, scope)
	b.Queue(visibleSQLOf(`(SELECT project_id FROM threads WHERE tenant_id = $1 AND user_id = $2 AND id = $3)`)+
		` ORDER BY CASE scope WHEN 'chat' THEN 0 WHEN 'user' THEN 1 ELSE 2 END, last_used_at DESC, id DESC`,
		scope.TenantID, scope.UserID, scope.ThreadParam())
	return func(br pgx.BatchResults) ([]Fact, error) {
		if _, err := project(br); err != nil {
			return nil, err
		}
		rows, err := br.Query()
		if err != nil {
			return nil, postgres.Wrap("list visible facts", err)
		}
		fs, err := pgx.CollectRows(rows, scanFact)
		return fs, postgres.Wrap("list visible facts", err)
	}
}

// Filter narrows List.
type Filter struct {
	Scope    string // chat, user, project or "" for all
	ThreadID string // chat facts of this thread only; with scope project, that thread's project
	Closed   bool   // also closed facts (superseded, forgotten, evicted)
	Page     yakor.Page
}

// List lists scope's user's facts, newest first.
func (s *Store) List(ctx context.Context, scope yakor.Scope, f Filter) ([]Fact, error) {
	switch f.Scope {
	case "", ScopeChat, ScopeUser, ScopeProject:
	default:
		return nil, yakor.Errorf(yakor.EINVALID, "scope must be chat, user or project")
	}
	project, anyProject := "", true
	if f.ThreadID != "" {
		p, err := threadProject(ctx, s.db, scope.WithThread(f.ThreadID))
		if err != nil {
			return nil, err
		}
		project, anyProject = p, false
	}
	const q = `SELECT ` + factColumns + ` FROM facts
WHERE tenant_id = $1 AND user_id = $2 AND ($3 = '' OR scope = $3) AND ($4 OR valid_to IS NULL)
  AND ($5 = '' OR scope <> 'chat' OR thread_id::text = $5)
  AND ($6 OR scope <> 'project' OR project_id IS NOT DISTINCT FROM nullif($7, '')::uuid) AND ($9 = 0 OR id < $9)
ORDER BY id DESC LIMIT $8`
	rows, err := s.db.Query(ctx, q, scope.TenantID, scope.UserID, f.Scope, f.Closed, f.ThreadID, anyProject, project, f.Page.Size(), f.Page.Before)
	if err != nil {
		return nil, postgres.Wrap("list facts", err)
	}
	fs, err := pgx.CollectRows(rows, scanFact)
	return fs, postgres.Wrap("list facts", err)
}

// Input is a fact written by a user through the API.
type Input struct {
	Scope    string
	Kind     string // default fact
	Text     string
	ThreadID string // the chat (scope chat) or the thread whose project it is (scope project; none: the default project)
}

// Add stores a fact a user wrote; it supersedes nothing and is kept like an
// extracted one (caps apply).
func (s *Store) Add(ctx context.Context, scope yakor.Scope, in Input) (Fact, error) {
	if in.Kind == "" {
		in.Kind = KindFact
	}
	in.Text = strings.TrimSpace(in.Text)
	if err := validFact(in.Scope, in.Kind, in.Text); err != nil {
		return Fact{}, err
	}
	if in.Scope == ScopeChat && in.ThreadID == "" {
		return Fact{}, yakor.Errorf(yakor.EINVALID, "a chat fact needs its thread")
	}
	project := ""
	if in.ThreadID != "" {
		p, err := threadProject(ctx, s.db, scope.WithThread(in.ThreadID))
		if err != nil {
			return Fact{}, err
		}
		project = p
	}
	thread := ""
	if in.Scope == ScopeChat {
		thread = in.ThreadID
	}
	var id int64
	err := pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		if err := lockUser(ctx, tx, scope); err != nil {
			return err
		}
		const q = `INSERT INTO facts (tenant_id, user_id, scope, thread_id, project_id, kind, text, confidence, source)
VALUES ($1, $2, $3, nullif($4, '')::uuid, CASE WHEN $3 = 'project' THEN nullif($5, '')::uuid END, $6, $7, 1, 'user') RETURNING id`
		if err := tx.QueryRow(ctx, q, scope.TenantID, scope.UserID, in.Scope, thread, project, in.Kind, in.Text).Scan(&id); err != nil {
			return err
		}
		return s.enforceCaps(ctx, tx, scope.TenantID, scope.UserID, in.Scope, thread, project)
	})
	if err != nil {
		return Fact{}, postgres.Wrap("add fact", err)
	}
	return s.fact(ctx, scope, id)
}

func validFact(scope, kind, text string) error {
	switch scope {
	case ScopeChat, ScopeUser, ScopeProject:
	default:
		return yakor.Errorf(yakor.EINVALID, "scope must be chat, user or project")
	}
	if !validKind(kind) {
		return yakor.Errorf(yakor.EINVALID, "kind must be fact, preference, constraint, decision, finding, blocker or correction")
	}
	if text == "" {
		return yakor.Errorf(yakor.EINVALID, "text is empty")
	}
	return history.ValidText("text", text, MaxChars)
}

func validKind(kind string) bool {
	switch kind {
	case KindFact, KindPreference, KindConstraint, KindDecision, KindFinding, KindBlocker, KindCorrection:
		return true
	}
	return false
}

func (s *Store) fact(ctx context.Context, scope yakor.Scope, id int64) (Fact, error) {
	rows, err := s.db.Query(ctx, `SELECT `+factColumns+` FROM facts WHERE tenant_id = $1 AND user_id = $2 AND id = $3`, scope.TenantID, scope.UserID, id)
	if err != nil {
		return Fact{}, postgres.Wrap("find fact", err)
	}
	f, err := pgx.CollectExactlyOneRow(rows, scanFact)
	if err != nil {
		return Fact{}, postgres.NotFound("find fact", err, yakor.Errorf(yakor.ENOTFOUND, "fact %d not found", id))
	}
	return f, nil
}

// Update edits a fact; nil fields are left.
type Update struct {
	Text *string
	Kind *string
}

// Update edits one of scope's user's facts.
func (s *Store) Update(ctx context.Context, scope yakor.Scope, id int64, u Update) (Fact, error) {
	f, err := s.fact(ctx, scope, id)
	if err != nil {
		return Fact{}, err
	}
	if u.Text != nil {
		f.Text = strings.TrimSpace(*u.Text)
	}
	if u.Kind != nil {
		f.Kind = *u.Kind
	}
	if err := validFact(f.Scope, f.Kind, f.Text); err != nil {
		return Fact{}, err
	}
	_, err = s.db.Exec(ctx, `UPDATE facts SET text = $4, kind = $5, source = 'user', updated_at = now() WHERE tenant_id = $1 AND user_id = $2 AND id = $3`,
		scope.TenantID, scope.UserID, id, f.Text, f.Kind)
	if err != nil {
		return Fact{}, postgres.Wrap("update fact", err)
	}
	return s.fact(ctx, scope, id)
}

// Delete deletes one of scope's user's facts for good.
func (s *Store) Delete(ctx context.Context, scope yakor.Scope, id int64) error {
	tag, err := s.db.Exec(ctx, `DELETE FROM facts WHERE tenant_id = $1 AND user_id = $2 AND id = $3`, scope.TenantID, scope.UserID, id)
	if err != nil {
		return postgres.Wrap("delete fact", err)
	}
	if tag.RowsAffected() == 0 {
		return yakor.Errorf(yakor.ENOTFOUND, "fact %d not found", id)
	}
	return nil
}

// DeleteThread deletes the chat facts of scope's thread for good; the
// user's and the project's facts stay. It says how many it deleted. The
// fact extractor does not read the thread's messages again.
func (s *Store) DeleteThread(ctx context.Context, scope yakor.Scope) (int, error) {
	tag, err := s.db.Exec(ctx, `DELETE FROM facts WHERE tenant_id = $1 AND user_id = $2 AND thread_id = $3 AND scope = 'chat'`,
		scope.TenantID, scope.UserID, scope.ThreadParam())
	if err != nil {
		return 0, postgres.Wrap("delete chat facts", err)
	}
	return int(tag.RowsAffected()), nil
}

// DeleteUser deletes all of scope's user's facts for good, of every scope,
// closed ones too. It says how many it deleted.
func (s *Store) DeleteUser(ctx context.Context, scope yakor.Scope) (int, error) {
	tag, err := s.db.Exec(ctx, `DELETE FROM facts WHERE tenant_id = $1 AND user_id = $2`, scope.TenantID, scope.UserID)
	if err != nil {
		return 0, postgres.Wrap("delete user facts", err)
	}
	return int(tag.RowsAffected()), nil
}

// enforceCaps closes the current facts of one scope over its cap: least
// recently used first, corrections and blockers last.
func (s *Store) enforceCaps(ctx context.Context, tx pgx.Tx, tenant, user, scope, thread, project string) error {
	limit := map[string]int{ScopeChat: s.cfg.Caps.Chat, ScopeUser: s.cfg.Caps.User, ScopeProject: s.cfg.Caps.Project}[scope]
	const q = `UPDATE facts SET valid_to = now(), closed_reason = 'evicted', updated_at = now()
WHERE tenant_id = $1 AND id IN (
    SELECT id FROM facts
    WHERE tenant_id = $1 AND user_id = $2 AND scope = $3 AND valid_to IS NULL
      AND ($3 <> 'chat' OR thread_id = nullif($4, '')::uuid)
      AND ($3 <> 'project' OR project_id IS NOT DISTINCT FROM nullif($5, '')::uuid)
    ORDER BY kind IN ('correction', 'blocker') DESC, last_used_at DESC, id DESC
    OFFSET $6)`
	_, err := tx.Exec(ctx, q, tenant, user, scope, thread, project, limit)
	return err
}
