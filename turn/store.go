package turn

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/anchors"
	"yakor/history"
	"yakor/mnemos"
	"yakor/postgres"
)

// Statuses of a turn.
const (
	StatusRunning = "running"
	StatusOK      = "ok"
	StatusFailed  = "failed"
)

// Trace is the record of one turn: what went into the prompt, how long each
// step took, which model answered and how it ended.
type Trace struct {
	ID             string             `json:"id"`
	ThreadID       string             `json:"thread_id"`
	UserMessageID  int64              `json:"user_message_id"`
	ReplyMessageID int64              `json:"reply_message_id,omitempty"`
	Status         string             `json:"status"`
	Error          string             `json:"error,omitempty"`
	Provider       string             `json:"provider"`
	Model          string             `json:"model"`
	Layers         []Layer            `json:"layers"`
	Timings        map[string]float64 `json:"timings_ms"`
	PromptChars    int                `json:"prompt_chars"`
	Searches       []SearchTrace      `json:"searches"`
	// Anchors are the anchoring decisions taken for the turn's messages
	// (read when the trace is shown: by default they are taken after it).
	Anchors []anchors.DecisionRecord `json:"anchors"`
	// Grades are the reply's grades, the user's first (read when the trace
	// is shown: grading runs after the reply).
	Grades []mnemos.Grade `json:"grades"`
	// MemoryError says why long-term memory was left out of the prompt.
	MemoryError string     `json:"memory_error,omitempty"`
	CreatedAt   time.Time  `json:"created_at"`
	FinishedAt  *time.Time `json:"finished_at,omitempty"`
}

const traceColumns = `id::text, thread_id::text, user_message_id, coalesce(reply_message_id, 0), status, error,
provider, model, layers, timings, prompt_chars, searches, created_at, finished_at`

func scanTrace(r pgx.CollectableRow) (Trace, error) {
	var t Trace
	var layers, timings, searches []byte
	err := r.Scan(&t.ID, &t.ThreadID, &t.UserMessageID, &t.ReplyMessageID, &t.Status, &t.Error,
		&t.Provider, &t.Model, &layers, &timings, &t.PromptChars, &searches, &t.CreatedAt, &t.FinishedAt)
	if err != nil {
		return t, err
	}
	if err := json.Unmarshal(layers, &t.Layers); err != nil {
		return t, fmt.Errorf("decode layers: %w", err)
	}
	if err := json.Unmarshal(timings, &t.Timings); err != nil {
		return t, fmt.Errorf("decode timings: %w", err)
	}
	if err := json.Unmarshal(searches, &t.Searches); err != nil {
		return t, fmt.Errorf("decode searches: %w", err)
	}
	return t, nil
}

// begin records a running turn for the user message. It returns ECONFLICT
// when another turn for the message is running or has answered.
func begin(ctx context.Context, db history.DB, scope yakor.Scope, userMsg int64, provider, model string) (string, error) {
	id := uuid.NewString()
	const q = `INSERT INTO turns (tenant_id, user_id, thread_id, id, user_message_id, status, provider, model)
VALUES ($1, $2, $3, $4, $5, 'running', $6, $7)`
	_, err := db.Exec(ctx, q, scope.TenantID, scope.UserID, scope.ThreadID, id, userMsg, provider, model)
	if postgres.IsUniqueViolation(err) {
		return "", yakor.Errorf(yakor.ECONFLICT, "a reply to this message is already being written; try again in a moment")
	}
	if err != nil {
		return "", postgres.Wrap("begin turn", err)
	}
	return id, nil
}

// answered returns the turn that answered userMsg, if any: ok (with its
// reply) or still running.
func answered(ctx context.Context, db history.DB, scope yakor.Scope, userMsg int64) (Trace, bool, error) {
	const q = `SELECT ` + traceColumns + ` FROM turns
WHERE tenant_id = $1 AND user_id = $2 AND user_message_id = $3 AND status IN ('running', 'ok')`
	rows, err := db.Query(ctx, q, scope.TenantID, scope.UserID, userMsg)
	if err != nil {
		return Trace{}, false, postgres.Wrap("find turn", err)
	}
	t, err := pgx.CollectExactlyOneRow(rows, scanTrace)
	if found, err := postgres.Found("find turn", err); !found {
		return Trace{}, false, err
	}
	return t, true, nil
}

// abandon marks a running turn older than age as failed: its server died
// mid-turn. It reports whether it did.
func abandon(ctx context.Context, db history.DB, scope yakor.Scope, id string, age time.Duration) (bool, error) {
	const q = `UPDATE turns SET status = 'failed', error = 'abandoned: the server handling it stopped before it finished', finished_at = now()
WHERE tenant_id = $1 AND id = $2 AND status = 'running' AND created_at < now() - make_interval(secs => $3)`
	tag, err := db.Exec(ctx, q, scope.TenantID, id, age.Seconds())
	if err != nil {
		return false, postgres.Wrap("abandon turn", err)
	}
	return tag.RowsAffected() == 1, nil
}

// AbandonRunning records every running turn as failed, and returns how
// many there were. Only a server that is its database's only one may call
// it (the private cluster's, at start): there a running turn was left by a
// server that stopped in the middle of it. db must see every tenant (the
// owner's pool).
func AbandonRunning(ctx context.Context, db history.DB) (int64, error) {
	const q = `UPDATE turns SET status = 'failed', error = 'abandoned: the server handling it stopped before it finished', finished_at = now()
WHERE status = 'running'`
	tag, err := db.Exec(ctx, q)
	if err != nil {
		return 0, postgres.Wrap("abandon running turns", err)
	}
	return tag.RowsAffected(), nil
}

// finish records the end of the running turn tr.ID: its reply (0 when it
// failed), layers, timings and error. ended is false when the turn was not
// running (it ended before, or was taken for abandoned), and then nothing
// is written: a failure recorded twice changes nothing, and a reply never
// ends a turn another one has replaced.
func finish(ctx context.Context, db history.DB, scope yakor.Scope, tr Trace) (ended bool, err error) {
	layers, err := json.Marshal(stripText(tr.Layers))
	if err != nil {
		return false, fmt.Errorf("finish turn: %w", err)
	}
	timings, err := json.Marshal(tr.Timings)
	if err != nil {
		return false, fmt.Errorf("finish turn: %w", err)
	}
	if tr.Searches == nil {
		tr.Searches = []SearchTrace{}
	}
	searches, err := json.Marshal(tr.Searches)
	if err != nil {
		return false, fmt.Errorf("finish turn: %w", err)
	}
	var reply *int64
	if tr.ReplyMessageID != 0 {
		reply = &tr.ReplyMessageID
	}
	const q = `UPDATE turns SET status = $3, error = $4, reply_message_id = $5, layers = $6, timings = $7,
prompt_chars = $8, provider = $9, model = $10, searches = $11, finished_at = now()
WHERE tenant_id = $1 AND id = $2 AND status = 'running'`
	tag, err := db.Exec(ctx, q, scope.TenantID, tr.ID, tr.Status, tr.Error, reply, layers, timings, tr.PromptChars, tr.Provider, tr.Model, searches)
	if err != nil {
		return false, postgres.Wrap("finish turn", err)
	}
	return tag.RowsAffected() == 1, nil
}

// stripText drops the layers' text: the trace keeps sizes and message ids,
// not a second copy of the thread.
func stripText(ls []Layer) []Layer {
	out := make([]Layer, len(ls))
	for i, l := range ls {
		l.Text = ""
		if l.MessageIDs == nil {
			l.MessageIDs = []int64{}
		}
		out[i] = l
	}
	return out
}

// FindTrace returns the turn with id in scope's tenant and user.
func (e *Engine) FindTrace(ctx context.Context, scope yakor.Scope, id string) (Trace, error) {
	if _, err := uuid.Parse(id); err != nil {
		return Trace{}, yakor.Errorf(yakor.ENOTFOUND, "turn %q not found", id)
	}
	const q = `SELECT ` + traceColumns + ` FROM turns WHERE tenant_id = $1 AND user_id = $2 AND id = $3`
	rows, err := e.pool.Query(ctx, q, scope.TenantID, scope.UserID, id)
	if err != nil {
		return Trace{}, postgres.Wrap("find turn", err)
	}
	t, err := pgx.CollectExactlyOneRow(rows, scanTrace)
	if err != nil {
		return Trace{}, postgres.NotFound("find turn", err, yakor.Errorf(yakor.ENOTFOUND, "turn %q not found", id))
	}
	t.Anchors = []anchors.DecisionRecord{}
	if e.anchors != nil {
		ids := []int64{t.UserMessageID}
		if t.ReplyMessageID != 0 {
			ids = append(ids, t.ReplyMessageID)
		}
		d, err := e.anchors.Decisions(ctx, scope.WithThread(t.ThreadID), ids)
		if err != nil {
			return Trace{}, err
		}
		t.Anchors = append(t.Anchors, d...)
	}
	t.Grades = []mnemos.Grade{}
	if e.memory != nil && t.ReplyMessageID != 0 {
		g, err := e.memory.Grades(ctx, scope, t.ReplyMessageID)
		if err != nil {
			return Trace{}, err
		}
		t.Grades = append(t.Grades, g...)
	}
	return t, nil
}
