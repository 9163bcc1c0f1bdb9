// Package history owns a thread's messages: the threads, messages and
// compactions tables. It appends messages (once per client id), lists them,
// loads the character-limited window of the newest messages that goes into
// a prompt, and compacts what scrolls out of it into summary rows.
//
// Other packages read messages through the Store (anchors, facts, jobs'
// check for a later reply, sufler, turn). Two read them in SQL of their
// own, read-only, as listed readers: search (its ranked search over a
// thread's messages, and the thread's count and speakers), and
// mnemos.MessageIndex (the messages without an embedding, and the check of
// the embeddings it stores and finds against their messages, joined with
// message_embeddings in the same statements).
package history

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"yakor"
	"yakor/postgres"
)

// Roles and kinds of messages.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"

	KindMessage = "message"
	KindSummary = "summary"
	KindTool    = "tool"
)

// DB is what the store needs of a pool or a transaction.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Begin(ctx context.Context) (pgx.Tx, error)
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// Store reads and writes threads and messages.
type Store struct {
	db DB
}

// NewStore returns a Store on db, a pool or a transaction.
func NewStore(db DB) *Store { return &Store{db: db} }

// WithTx returns a Store that works inside tx.
func (s *Store) WithTx(tx pgx.Tx) *Store { return &Store{db: tx} }

// Thread is one conversation.
type Thread struct {
	ID           string
	ProjectID    string
	Title        string
	SystemPrompt string
	// SystemPromptChangedAt is when a client last changed the system
	// prompt (SetSystemPrompt); nil when it never did.
	SystemPromptChangedAt *time.Time
	// ExternalKey names the thread from outside (OpenThread); "" for none.
	ExternalKey  string
	CreatedAt    time.Time
	UpdatedAt    time.Time
	MessageCount int64    // messages in the thread
	Authors      []string // speakers' names seen in the thread
}

// ThreadCreate is what a new thread may be given.
type ThreadCreate struct {
	Title        string
	ProjectID    string
	SystemPrompt string
}

// Message is one message of a thread.
type Message struct {
	ID        int64
	ThreadID  string
	Role      string
	Kind      string
	Content   string
	Chars     int    // length in Unicode characters
	Author    string // the speaker's name when known ("" otherwise)
	ClientID  string
	TurnID    string
	CreatedAt time.Time
	// SummaryThrough is, for a summary row, the last message it covers.
	SummaryThrough int64
	// Meta is what the message carries for the model besides its text
	// (tool calls, the call a tool result answers); nil for most.
	Meta *Meta
	// Chain links the message into its client's conversation (Chain); nil
	// for messages of clients that do not send one.
	Chain []byte
	// SupersededAt is when a client's edit or regenerate put the message on
	// an earlier branch (out of the window and search); nil on the branch.
	SupersededAt *time.Time
}

// Meta is what a message carries besides its text. Content holds it
// written out for readers (search, anchors, summaries); the model gets it
// as OpenAI's fields.
type Meta struct {
	// ToolCalls are an assistant message's calls of the caller's tools,
	// and Text its own text beside them.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	Text      string     `json:"text,omitempty"`
	// ToolCallID is the call a tool result answers, Name the tool's.
	ToolCallID string `json:"tool_call_id,omitempty"`
	Name       string `json:"name,omitempty"`
}

// ToolCall is one call of a tool by the model.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// NewMessage is a message to append.
type NewMessage struct {
	Role     string
	Kind     string // "" means KindMessage
	Content  string
	ClientID string // optional; unique per thread: a second append with it returns the first
	TurnID   string // optional: the turn that wrote it
	Author   string // optional: the speaker's name; names are not search evidence
	Meta     *Meta  // optional: tool calls, or the call a tool result answers
	Chain    []byte // optional: the message's link in its client's conversation
	// CreatedAt, for Import only, keeps an imported message's original time
	// (zero: now).
	CreatedAt time.Time
}

// MaxTitleChars bounds a thread's title.
const MaxTitleChars = 200

// ValidateContent refuses what must never be stored: empty text, a NUL byte,
// invalid UTF-8 and text over max characters (max <= 0: no limit). The error
// is an EINVALID or ETOOLARGE *yakor.Error.
func ValidateContent(content string, max int) error {
	if !utf8.ValidString(content) {
		return yakor.Errorf(yakor.EINVALID, "content is not valid UTF-8")
	}
	if strings.IndexByte(content, 0) >= 0 {
		return yakor.Errorf(yakor.EINVALID, "content contains a NUL character (\\u0000), which cannot be stored")
	}
	if strings.TrimSpace(content) == "" {
		return yakor.Errorf(yakor.EINVALID, "content is empty")
	}
	if n := utf8.RuneCountInString(content); max > 0 && n > max {
		return yakor.Errorf(yakor.ETOOLARGE, "content is %d characters long; the limit is %d", n, max)
	}
	return nil
}

// ValidText refuses text that must not be stored in field: invalid UTF-8,
// a NUL character, or more than max characters. The error is EINVALID.
func ValidText(field, s string, max int) error {
	if !utf8.ValidString(s) {
		return yakor.Errorf(yakor.EINVALID, "%s is not valid UTF-8", field)
	}
	if strings.IndexByte(s, 0) >= 0 {
		return yakor.Errorf(yakor.EINVALID, "%s contains a NUL character", field)
	}
	if n := utf8.RuneCountInString(s); n > max {
		return yakor.Errorf(yakor.EINVALID, "%s is %d characters long; the limit is %d", field, n, max)
	}
	return nil
}

// CreateThread creates a thread for scope's user.
func (s *Store) CreateThread(ctx context.Context, scope yakor.Scope, tc ThreadCreate) (Thread, error) {
	tc.Title = strings.TrimSpace(tc.Title)
	if err := validThread(tc); err != nil {
		return Thread{}, err
	}
	const q = `
INSERT INTO threads (tenant_id, user_id, id, project_id, title, system_prompt)
VALUES ($1, $2, $3, $4, $5, $6)
RETURNING ` + threadColumns
	var project *string
	if tc.ProjectID != "" {
		project = &tc.ProjectID
	}
	t, err := queryThread(ctx, s.db, q, scope.TenantID, scope.UserID, uuid.NewString(), project, tc.Title, tc.SystemPrompt)
	if err != nil {
		return Thread{}, postgres.Wrap("create thread", err)
	}
	return t, nil
}

// validThread refuses a title or system prompt that must not be stored.
func validThread(tc ThreadCreate) error {
	if err := ValidText("title", tc.Title, MaxTitleChars); err != nil {
		return err
	}
	return ValidText("system prompt", tc.SystemPrompt, 100_000)
}

// FindThread returns scope's thread, or ENOTFOUND.
func (s *Store) FindThread(ctx context.Context, scope yakor.Scope) (Thread, error) {
	if _, err := uuid.Parse(scope.ThreadID); err != nil {
		return Thread{}, errThreadNotFound(scope.ThreadID)
	}
	const q = `SELECT ` + threadColumns + ` FROM threads WHERE tenant_id = $1 AND user_id = $2 AND id = $3`
	t, err := queryThread(ctx, s.db, q, scope.TenantID, scope.UserID, scope.ThreadID)
	if err != nil {
		return Thread{}, postgres.NotFound("find thread", err, errThreadNotFound(scope.ThreadID))
	}
	return t, nil
}

// ThreadProject returns the project of scope's thread ("" for the user's
// default project), or ENOTFOUND when the thread is not the user's.
func (s *Store) ThreadProject(ctx context.Context, scope yakor.Scope) (string, error) {
	var project string
	err := s.db.QueryRow(ctx, threadProjectSQL, scope.TenantID, scope.UserID, scope.ThreadParam()).Scan(&project)
	if err != nil {
		return "", postgres.NotFound("find thread", err, errThreadNotFound(scope.ThreadID))
	}
	return project, nil
}

const threadProjectSQL = `SELECT coalesce(project_id::text, '') FROM threads WHERE tenant_id = $1 AND user_id = $2 AND id = $3`

// QueueThreadProject queues ThreadProject's lookup in b, for a store that
// sends it in one round trip with its own statements, and returns what
// reads its result, in the batch's order.
func QueueThreadProject(b *pgx.Batch, scope yakor.Scope) func(pgx.BatchResults) (string, error) {
	b.Queue(threadProjectSQL, scope.TenantID, scope.UserID, scope.ThreadParam())
	return func(br pgx.BatchResults) (string, error) {
		var project string
		if err := br.QueryRow().Scan(&project); err != nil {
			return "", postgres.NotFound("find thread", err, errThreadNotFound(scope.ThreadID))
		}
		return project, nil
	}
}

// ThreadAuthors returns the names the authors of scope's thread go by (the
// anchors' extractor leaves them out of topics), or ENOTFOUND when the
// thread is not the user's.
func (s *Store) ThreadAuthors(ctx context.Context, scope yakor.Scope) ([]string, error) {
	var authors []string
	err := s.db.QueryRow(ctx, `SELECT authors FROM threads WHERE tenant_id = $1 AND user_id = $2 AND id = $3`,
		scope.TenantID, scope.UserID, scope.ThreadParam()).Scan(&authors)
	if err != nil {
		return nil, postgres.NotFound("find thread", err, errThreadNotFound(scope.ThreadID))
	}
	return authors, nil
}

// ThreadFilter narrows FindThreads.
type ThreadFilter struct {
	Limit int    // 0: 100; at most 1001
	Title string // only threads whose title contains it, case-insensitively
	// After, with AfterID, starts the list after the thread active at that
	// time with that id (paging); zero: from the most recently active.
	After   time.Time
	AfterID string
}

// FindThreads lists scope's user's threads, most recently active first
// (then by id, for a stable order).
func (s *Store) FindThreads(ctx context.Context, scope yakor.Scope, f ThreadFilter) ([]Thread, error) {
	if f.Limit <= 0 || f.Limit > 1001 {
		f.Limit = 100
	}
	var after *time.Time
	if !f.After.IsZero() {
		after = &f.After
	}
	if _, err := uuid.Parse(f.AfterID); err != nil {
		f.AfterID = "ffffffff-ffff-ffff-ffff-ffffffffffff"
	}
	const q = `SELECT ` + threadColumns + ` FROM threads WHERE tenant_id = $1 AND user_id = $2
  AND ($4 = '' OR yakor_fold(title) LIKE '%' || yakor_fold($4) || '%' ESCAPE '\')
  AND ($5::timestamptz IS NULL OR (updated_at, id) < ($5, $6::uuid))
ORDER BY updated_at DESC, id DESC LIMIT $3`
	rows, err := s.db.Query(ctx, q, scope.TenantID, scope.UserID, f.Limit, escapeLike(f.Title), after, f.AfterID)
	if err != nil {
		return nil, postgres.Wrap("find threads", err)
	}
	threads, err := pgx.CollectRows(rows, pgx.RowToStructByName[Thread])
	if err != nil {
		return nil, postgres.Wrap("find threads", err)
	}
	return threads, nil
}

// RenameThread sets scope's thread's title.
func (s *Store) RenameThread(ctx context.Context, scope yakor.Scope, title string) (Thread, error) {
	title = strings.TrimSpace(title)
	if err := ValidText("title", title, MaxTitleChars); err != nil {
		return Thread{}, err
	}
	tag, err := s.db.Exec(ctx, `UPDATE threads SET title = $4 WHERE tenant_id = $1 AND user_id = $2 AND id = $3`,
		scope.TenantID, scope.UserID, scope.ThreadParam(), title)
	if err != nil {
		return Thread{}, postgres.Wrap("rename thread", err)
	}
	if tag.RowsAffected() == 0 {
		return Thread{}, yakor.Errorf(yakor.ENOTFOUND, "thread %q not found", scope.ThreadID)
	}
	return s.FindThread(ctx, scope)
}

// escapeLike escapes LIKE's wildcards and escape character in s.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// threadColumns are a Thread's columns, named as its fields for
// pgx.RowToStructByName.
const threadColumns = `id::text AS id, coalesce(project_id::text, '') AS project_id, title, system_prompt,
system_prompt_changed_at, coalesce(external_key, '') AS external_key, created_at, updated_at, message_count, authors`

// queryThread runs q, which selects threadColumns, for exactly one thread
// (none is the error postgres.NotFound and postgres.Found read as no rows).
// On an error the Thread is zero.
func queryThread(ctx context.Context, db DB, q string, args ...any) (Thread, error) {
	rows, err := db.Query(ctx, q, args...)
	if err != nil {
		return Thread{}, err
	}
	t, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Thread])
	if err != nil {
		return Thread{}, err
	}
	return t, nil
}

func errThreadNotFound(id string) error {
	return yakor.Errorf(yakor.ENOTFOUND, "thread %q not found", id)
}
