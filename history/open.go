package history

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/postgres"
)

// MaxExternalKeyChars bounds a thread's external key.
const MaxExternalKeyChars = 300

// ThreadOpen names a thread for OpenThread to find or create.
type ThreadOpen struct {
	// Key names the thread among its user's threads; "" creates a new
	// thread every time.
	Key string
	// Create is what a new thread is given.
	Create ThreadCreate
	// History is a new thread's earlier messages (user and assistant
	// messages, oldest first), stored before anything else is; a thread
	// that exists keeps its own.
	History []NewMessage
	// MaxHistory bounds History when the thread is made (ErrLongHistory);
	// 0 bounds nothing.
	MaxHistory int
}

// DefaultMaxImport is the default of MaxHistory where a client imports a
// conversation (/v1's --max-import-messages).
const DefaultMaxImport = 1000

// ErrLongHistory is in the chain of OpenThread's error when a new thread
// would import more than MaxHistory messages.
var ErrLongHistory = errors.New("history: more earlier messages than the import limit")

// OpenThread finds scope's user's thread with o.Key, or creates it with
// o.Create and o.History, all in one transaction: a thread never exists
// without its history. created reports which. Concurrent calls with one key
// end in one thread (the later ones find the first's), and only the call
// that created it stores the history. Errors: EINVALID (a bad key, title,
// system prompt or history message, which names its place), EUNAVAILABLE.
func (s *Store) OpenThread(ctx context.Context, scope yakor.Scope, o ThreadOpen) (t Thread, created bool, err error) {
	o.Create.Title = strings.TrimSpace(o.Create.Title)
	if err := validThread(o.Create); err != nil {
		return Thread{}, false, err
	}
	if err := ValidText("external key", o.Key, MaxExternalKeyChars); err != nil {
		return Thread{}, false, err
	}
	for i, m := range o.History {
		if err := ValidateContent(m.Content, 0); err != nil {
			return Thread{}, false, fmt.Errorf("history message %d: %w", i, err)
		}
		if m.Role != RoleUser && m.Role != RoleAssistant {
			return Thread{}, false, yakor.Errorf(yakor.EINVALID, "history message %d: role %q: only user and assistant messages are history", i, m.Role)
		}
	}
	if o.Key != "" {
		// Most opens find the thread: one query, no transaction.
		t, err := queryThread(ctx, s.db, byKey, scope.TenantID, scope.UserID, o.Key)
		if found, err := postgres.Found("open thread", err); err != nil || found {
			return t, false, err
		}
	}
	err = pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		var err error
		t, created, err = openThread(ctx, tx, scope, o)
		if err != nil || !created || len(o.History) == 0 {
			return err
		}
		if o.MaxHistory > 0 && len(o.History) > o.MaxHistory {
			// Rolled back with the thread: nothing is written.
			return fmt.Errorf("%w: %w", yakor.Errorf(yakor.EINVALID, "the request carries %d earlier messages for a new conversation; at most %d are imported (--max-import-messages): send the newest ones, or continue a conversation Yakor holds (X-Yakor-Conversation)", len(o.History), o.MaxHistory), ErrLongHistory)
		}
		store := s.WithTx(tx)
		if _, err := store.Import(ctx, scope.WithThread(t.ID), o.History); err != nil {
			return err
		}
		t, err = store.FindThread(ctx, scope.WithThread(t.ID))
		return err
	})
	if err != nil {
		return Thread{}, false, postgres.Wrap("open thread", err)
	}
	return t, created, nil
}

// openThread inserts the thread unless one with the key exists, which it
// then returns. Under READ COMMITTED the insert of a key another
// transaction is inserting waits for that one to end, and the select that
// follows sees its row.
func openThread(ctx context.Context, tx pgx.Tx, scope yakor.Scope, o ThreadOpen) (Thread, bool, error) {
	var key *string
	if o.Key != "" {
		key = &o.Key
	}
	var project *string
	if o.Create.ProjectID != "" {
		project = &o.Create.ProjectID
	}
	const ins = `
INSERT INTO threads (tenant_id, user_id, id, project_id, title, system_prompt, external_key)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (tenant_id, user_id, external_key) DO NOTHING
RETURNING ` + threadColumns
	t, err := queryThread(ctx, tx, ins, scope.TenantID, scope.UserID, uuid.NewString(), project, o.Create.Title, o.Create.SystemPrompt, key)
	if created, err := postgres.Found("create thread", err); err != nil || created {
		return t, created, err
	}
	t, err = queryThread(ctx, tx, byKey, scope.TenantID, scope.UserID, o.Key)
	if err != nil {
		return Thread{}, false, fmt.Errorf("find thread by key: %w", err)
	}
	return t, false, nil
}

// byKey selects scope's user's thread with an external key: $1 tenant, $2
// user, $3 key.
const byKey = `SELECT ` + threadColumns + ` FROM threads WHERE tenant_id = $1 AND user_id = $2 AND external_key = $3`

// SetSystemPrompt makes prompt scope's thread's system prompt, recording
// when it changed; the same prompt again changes nothing. ENOTFOUND: no
// such thread of the user.
func (s *Store) SetSystemPrompt(ctx context.Context, scope yakor.Scope, prompt string) (Thread, error) {
	if err := validThread(ThreadCreate{SystemPrompt: prompt}); err != nil {
		return Thread{}, err
	}
	_, err := s.db.Exec(ctx, `UPDATE threads SET system_prompt = $4, system_prompt_changed_at = now()
WHERE tenant_id = $1 AND user_id = $2 AND id = $3 AND system_prompt <> $4`, scope.TenantID, scope.UserID, scope.ThreadParam(), prompt)
	if err != nil {
		return Thread{}, postgres.Wrap("set system prompt", err)
	}
	return s.FindThread(ctx, scope)
}
