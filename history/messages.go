package history

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/postgres"
)

const messageColumns = `id, thread_id::text, role, kind, content, chars, author, coalesce(client_id, ''), coalesce(turn_id::text, ''), created_at, coalesce(summary_through, 0), meta, chain, superseded_at`

func scanMessage(r pgx.CollectableRow) (Message, error) {
	var m Message
	err := r.Scan(&m.ID, &m.ThreadID, &m.Role, &m.Kind, &m.Content, &m.Chars, &m.Author, &m.ClientID, &m.TurnID, &m.CreatedAt, &m.SummaryThrough, &m.Meta, &m.Chain, &m.SupersededAt)
	return m, err
}

// Append stores a message at the end of scope's thread. When nm.ClientID is
// set and the thread already holds a message with it, Append writes nothing
// and returns that message with created false; this holds for concurrent
// calls too. The content is validated as by ValidateContent (no size limit:
// the caller applies its own).
func (s *Store) Append(ctx context.Context, scope yakor.Scope, nm NewMessage) (m Message, created bool, err error) {
	nm, err = validNewMessage(nm)
	if err != nil {
		return Message{}, false, err
	}
	if _, err := s.FindThread(ctx, scope); err != nil {
		return Message{}, false, err
	}
	return s.insert(ctx, scope, nm)
}

// AppendTo is Append to thread, which FindThread found in scope (the same
// tenant, user and thread): it does not look the thread up again. A thread
// deleted since is ENOTFOUND, as with Append.
func (s *Store) AppendTo(ctx context.Context, scope yakor.Scope, thread Thread, nm NewMessage) (m Message, created bool, err error) {
	nm, err = validNewMessage(nm)
	if err != nil {
		return Message{}, false, err
	}
	if id, err := uuid.Parse(scope.ThreadID); err != nil || id.String() != thread.ID {
		return Message{}, false, errThreadNotFound(scope.ThreadID)
	}
	m, created, err = s.insert(ctx, scope, nm)
	if postgres.IsForeignKeyViolation(err) {
		// The message's only foreign key is its thread.
		return Message{}, false, errThreadNotFound(scope.ThreadID)
	}
	return m, created, err
}

// validNewMessage checks nm as Append does and fills in its default kind.
func validNewMessage(nm NewMessage) (NewMessage, error) {
	if err := ValidateContent(nm.Content, 0); err != nil {
		return nm, err
	}
	if nm.Kind == "" {
		nm.Kind = KindMessage
	}
	switch nm.Role {
	case RoleSystem, RoleUser, RoleAssistant, RoleTool:
	default:
		return nm, yakor.Errorf(yakor.EINVALID, "unknown role %q", nm.Role)
	}
	switch nm.Kind {
	case KindMessage, KindSummary, KindTool:
	default:
		return nm, yakor.Errorf(yakor.EINVALID, "unknown kind %q", nm.Kind)
	}
	if err := ValidText("client_id", nm.ClientID, 200); err != nil {
		return nm, err
	}
	return nm, ValidText("author", nm.Author, 200)
}

// insert appends the valid message nm to scope's thread, or returns the
// message that holds its client id.
func (s *Store) insert(ctx context.Context, scope yakor.Scope, nm NewMessage) (m Message, created bool, err error) {
	var clientID, turnID *string
	if nm.ClientID != "" {
		clientID = &nm.ClientID
	}
	if nm.TurnID != "" {
		turnID = &nm.TurnID
	}
	const ins = `
WITH ins AS (
    INSERT INTO messages (tenant_id, user_id, thread_id, role, kind, content, client_id, turn_id, author, meta, chain)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
    ON CONFLICT (tenant_id, thread_id, client_id) WHERE client_id IS NOT NULL DO NOTHING
    RETURNING ` + messageColumns + `
), touch AS (
    UPDATE threads SET updated_at = now(), message_count = message_count + 1,
        authors = CASE WHEN $9 = '' OR $9 = ANY (authors) THEN authors ELSE array_append(authors, $9) END
    WHERE tenant_id = $1 AND id = $3 AND EXISTS (SELECT 1 FROM ins)
)
SELECT * FROM ins`
	rows, err := s.db.Query(ctx, ins, scope.TenantID, scope.UserID, scope.ThreadID, nm.Role, nm.Kind, nm.Content, clientID, turnID, nm.Author, nm.Meta, nm.Chain)
	if err != nil {
		return Message{}, false, postgres.Wrap("append message", err)
	}
	m, err = pgx.CollectExactlyOneRow(rows, scanMessage)
	if created, err = postgres.Found("append message", err); err != nil {
		return Message{}, false, err
	}
	if created {
		return m, true, nil
	}
	// The client id is taken: the first message with it is the answer.
	m, err = s.FindByClientID(ctx, scope, nm.ClientID)
	if err != nil {
		return Message{}, false, err
	}
	return m, false, nil
}

// FindByClientID returns the message of scope's thread with the client id.
func (s *Store) FindByClientID(ctx context.Context, scope yakor.Scope, clientID string) (Message, error) {
	const q = `SELECT ` + messageColumns + ` FROM messages
WHERE tenant_id = $1 AND user_id = $2 AND thread_id = $3 AND client_id = $4`
	rows, err := s.db.Query(ctx, q, scope.TenantID, scope.UserID, scope.ThreadID, clientID)
	if err != nil {
		return Message{}, postgres.Wrap("find message by client id", err)
	}
	m, err := pgx.CollectExactlyOneRow(rows, scanMessage)
	if err != nil {
		return Message{}, postgres.NotFound("find message by client id", err, yakor.Errorf(yakor.ENOTFOUND, "no message with client_id %q", clientID))
	}
	return m, nil
}

// FindMessage returns the message with id in scope's tenant and user (and
// thread, when scope names one).
func (s *Store) FindMessage(ctx context.Context, scope yakor.Scope, id int64) (Message, error) {
	const q = `SELECT ` + messageColumns + ` FROM messages
WHERE tenant_id = $1 AND user_id = $2 AND id = $3 AND ($4 = '' OR thread_id::text = $4)`
	rows, err := s.db.Query(ctx, q, scope.TenantID, scope.UserID, id, scope.ThreadID)
	if err != nil {
		return Message{}, postgres.Wrap("find message", err)
	}
	m, err := pgx.CollectExactlyOneRow(rows, scanMessage)
	if err != nil {
		return Message{}, postgres.NotFound("find message", err, yakor.Errorf(yakor.ENOTFOUND, "message %d not found", id))
	}
	return m, nil
}

// MessageFilter narrows Messages.
type MessageFilter struct {
	AfterID int64 // only messages with a greater id
	Limit   int   // 0: all
}

// messagesSQL lists a thread's messages after one, oldest first: $1
// tenant, $2 user, $3 thread, $4 after id, $5 rows (null: all).
var messagesSQL = `SELECT ` + messageColumns + ` FROM messages
WHERE tenant_id = $1 AND user_id = $2 AND ` + postgres.OneThread("$3") + ` AND id > $4
` + postgres.OldestFirst + ` LIMIT $5`

// Messages lists scope's thread's messages, oldest first. An unknown thread
// is ENOTFOUND.
func (s *Store) Messages(ctx context.Context, scope yakor.Scope, f MessageFilter) ([]Message, error) {
	if _, err := s.FindThread(ctx, scope); err != nil {
		return nil, err
	}
	limit := any(nil)
	if f.Limit > 0 {
		limit = f.Limit
	}
	rows, err := s.db.Query(ctx, messagesSQL, scope.TenantID, scope.UserID, scope.ThreadID, f.AfterID, limit)
	if err != nil {
		return nil, postgres.Wrap("list messages", err)
	}
	msgs, err := pgx.CollectRows(rows, scanMessage)
	if err != nil {
		return nil, postgres.Wrap("list messages", err)
	}
	return msgs, nil
}

// Between returns scope's thread's conversation messages (kind message: no
// summary or tool rows) with an id after afterID and up to upTo, oldest
// first. It does not look the thread up: another thread's, or another
// user's, has none.
func (s *Store) Between(ctx context.Context, scope yakor.Scope, afterID, upTo int64) ([]Message, error) {
	const q = `SELECT ` + messageColumns + ` FROM messages
WHERE tenant_id = $1 AND user_id = $2 AND thread_id = $3 AND id > $4 AND id <= $5 AND kind = 'message' AND superseded_at IS NULL
ORDER BY id`
	rows, err := s.db.Query(ctx, q, scope.TenantID, scope.UserID, scope.ThreadParam(), afterID, upTo)
	if err != nil {
		return nil, postgres.Wrap("read messages", err)
	}
	msgs, err := pgx.CollectRows(rows, scanMessage)
	if err != nil {
		return nil, postgres.Wrap("read messages", err)
	}
	return msgs, nil
}

// LaterReply reports whether scope's thread has a reply (an assistant's
// message) after message id.
func (s *Store) LaterReply(ctx context.Context, scope yakor.Scope, id int64) (bool, error) {
	const q = `SELECT EXISTS (SELECT 1 FROM messages
WHERE tenant_id = $1 AND user_id = $2 AND thread_id = $3 AND id > $4 AND role = 'assistant' AND kind = 'message' AND superseded_at IS NULL)`
	var later bool
	err := s.db.QueryRow(ctx, q, scope.TenantID, scope.UserID, scope.ThreadParam(), id).Scan(&later)
	return later, postgres.Wrap("find a later reply", err)
}

func reverse(ms []Message) []Message {
	for i, j := 0, len(ms)-1; i < j; i, j = i+1, j-1 {
		ms[i], ms[j] = ms[j], ms[i]
	}
	return ms
}

// Import appends many messages to scope's thread in one statement, in order,
// keeping their authors and times. It is for loading an existing
// conversation (and benchmarks); client ids are not checked for repeats, so
// import into a thread once. Run it in a transaction to make it all or
// nothing.
func (s *Store) Import(ctx context.Context, scope yakor.Scope, msgs []NewMessage) (int64, error) {
	created, err := s.ImportMessages(ctx, scope, msgs)
	return int64(len(created)), err
}

// ImportMessages is Import, returning the messages it stored: a message
// whose client id the thread holds is not stored again (a repeated import
// stores nothing twice).
func (s *Store) ImportMessages(ctx context.Context, scope yakor.Scope, msgs []NewMessage) ([]Message, error) {
	if _, err := s.FindThread(ctx, scope); err != nil {
		return nil, err
	}
	for i, m := range msgs {
		if err := ValidateContent(m.Content, 0); err != nil {
			return nil, fmt.Errorf("import message %d: %w", i, err)
		}
	}
	now := time.Now()
	cols := make([][]string, 6) // role, kind, content, client id, author, meta
	chains := make([][]byte, len(msgs))
	times := make([]time.Time, len(msgs))
	for i, m := range msgs {
		kind := m.Kind
		if kind == "" {
			kind = KindMessage
		}
		meta, err := metaText(m.Meta)
		if err != nil {
			return nil, fmt.Errorf("import message %d: %w", i, err)
		}
		for c, v := range []string{m.Role, kind, m.Content, m.ClientID, m.Author, meta} {
			cols[c] = append(cols[c], v)
		}
		chains[i] = m.Chain
		times[i] = m.CreatedAt
		if times[i].IsZero() {
			times[i] = now
		}
	}
	// One statement, rows in order (ids follow it), and no COPY, which
	// PostgreSQL refuses under row-level security.
	const q = `INSERT INTO messages (tenant_id, user_id, thread_id, role, kind, content, client_id, author, created_at, meta, chain)
SELECT $1, $2, $3, m.role, m.kind, m.content, nullif(m.client_id, ''), m.author, m.created_at, nullif(m.meta, '')::jsonb, m.chain
FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::timestamptz[], $10::text[], $11::bytea[])
    WITH ORDINALITY AS m(role, kind, content, client_id, author, created_at, meta, chain, n)
ORDER BY m.n
ON CONFLICT (tenant_id, thread_id, client_id) WHERE client_id IS NOT NULL DO NOTHING
RETURNING ` + messageColumns
	rows, err := s.db.Query(ctx, q, scope.TenantID, scope.UserID, scope.ThreadID, cols[0], cols[1], cols[2], cols[3], cols[4], times, cols[5], chains)
	if err != nil {
		return nil, postgres.Wrap("import messages", err)
	}
	created, err := pgx.CollectRows(rows, scanMessage)
	if err != nil {
		return nil, postgres.Wrap("import messages", err)
	}
	slices.SortFunc(created, func(a, b Message) int { return cmp.Compare(a.ID, b.ID) })
	n := len(created)
	var authors []string
	seen := map[string]bool{}
	for _, m := range created {
		if m.Author != "" && !seen[m.Author] {
			seen[m.Author] = true
			authors = append(authors, m.Author)
		}
	}
	const touch = `UPDATE threads SET updated_at = now(), message_count = message_count + $3,
    authors = ARRAY(SELECT a FROM unnest(authors || $4::text[]) WITH ORDINALITY AS u(a, i) GROUP BY a ORDER BY min(i))
WHERE tenant_id = $1 AND id = $2`
	if _, err := s.db.Exec(ctx, touch, scope.TenantID, scope.ThreadID, n, authors); err != nil {
		return nil, postgres.Wrap("import messages", err)
	}
	return created, nil
}

// metaText is m as JSON text, "" for none.
func metaText(m *Meta) (string, error) {
	if m == nil {
		return "", nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("encode message meta: %w", err)
	}
	return string(b), nil
}

// FindMessages returns the messages of scope's thread with the given ids,
// oldest first; ids of other threads are left out.
func (s *Store) FindMessages(ctx context.Context, scope yakor.Scope, ids []int64) ([]Message, error) {
	const q = `SELECT ` + messageColumns + ` FROM messages
WHERE tenant_id = $1 AND user_id = $2 AND thread_id = $3 AND id = ANY($4) ORDER BY id`
	rows, err := s.db.Query(ctx, q, scope.TenantID, scope.UserID, scope.ThreadParam(), ids)
	if err != nil {
		return nil, postgres.Wrap("find messages", err)
	}
	msgs, err := pgx.CollectRows(rows, scanMessage)
	if err != nil {
		return nil, postgres.Wrap("find messages", err)
	}
	return msgs, nil
}

// neighbourAfterSQL and neighbourBeforeSQL read the nearest message of a
// role after or before one: $1 tenant, $2 user, $3 thread, $4 message id,
// $5 role.
var (
	neighbourAfterSQL = `SELECT ` + messageColumns + ` FROM messages
WHERE tenant_id = $1 AND user_id = $2 AND ` + postgres.OneThread("$3") + ` AND id > $4 AND role = $5 AND kind = 'message' AND superseded_at IS NULL ` + postgres.OldestFirst + ` LIMIT 1`
	neighbourBeforeSQL = `SELECT ` + messageColumns + ` FROM messages
WHERE tenant_id = $1 AND user_id = $2 AND ` + postgres.OneThread("$3") + ` AND id < $4 AND role = $5 AND kind = 'message' AND superseded_at IS NULL ` + postgres.NewestFirst + ` LIMIT 1`
)

// Neighbour returns the nearest message of role in scope's thread before
// (dir < 0) or after (dir > 0) message id; ok is false when there is none.
func (s *Store) Neighbour(ctx context.Context, scope yakor.Scope, id int64, role string, dir int) (m Message, ok bool, err error) {
	q := neighbourAfterSQL
	if dir < 0 {
		q = neighbourBeforeSQL
	}
	rows, err := s.db.Query(ctx, q, scope.TenantID, scope.UserID, scope.ThreadParam(), id, role)
	if err != nil {
		return Message{}, false, postgres.Wrap("find neighbour message", err)
	}
	m, err = pgx.CollectExactlyOneRow(rows, scanMessage)
	if found, err := postgres.Found("find neighbour message", err); !found {
		return Message{}, false, err
	}
	return m, true, nil
}

// toolCallsReach is how many of a thread's newest messages LastToolCalls
// looks through: the results of a reply's calls come right after it.
const toolCallsReach = 64

// lastToolCallsSQL reads the newest reply with tool calls among the
// thread's last $4 messages: $1 tenant, $2 user, $3 thread.
var lastToolCallsSQL = `SELECT * FROM (
    SELECT ` + messageColumns + ` FROM messages
    WHERE tenant_id = $1 AND user_id = $2 AND ` + postgres.OneThread("$3") + ` AND kind <> 'summary' AND superseded_at IS NULL
    ` + postgres.NewestFirst + ` LIMIT $4
) last WHERE role = 'assistant' AND meta ? 'tool_calls' ORDER BY id DESC LIMIT 1`

// LastToolCalls returns the newest of the thread's last messages that
// called the caller's tools (Meta.ToolCalls), if any: the reply whose calls
// a request's tool results answer.
func (s *Store) LastToolCalls(ctx context.Context, scope yakor.Scope) (Message, bool, error) {
	rows, err := s.db.Query(ctx, lastToolCallsSQL, scope.TenantID, scope.UserID, scope.ThreadParam(), toolCallsReach)
	if err != nil {
		return Message{}, false, postgres.Wrap("find tool calls", err)
	}
	m, err := pgx.CollectExactlyOneRow(rows, scanMessage)
	if found, err := postgres.Found("find tool calls", err); !found {
		return Message{}, false, err
	}
	return m, true, nil
}
