package facts

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/history"
	"yakor/llm"
	"yakor/postgres"
	"yakor/words"
)

// Completer is the helper model.
type Completer interface {
	Complete(ctx context.Context, req llm.Request) (llm.Result, error)
}

// WithHelper makes the extractor ask helper (nil: the offline extractor).
func (s *Store) WithHelper(helper Completer) *Store {
	s.helper = helper
	return s
}

// factBatch is how many messages one extraction pass reads.
const factBatch = 200

// Extract reads scope's thread's user messages after its fact cursor,
// up to upTo (0: all), extracts what is worth keeping (the helper model, or
// the offline extractor when there is none or its answer is unusable) and
// applies it: a forget request closes the matching facts; a fact with a
// slot closes the current fact of that slot when their values differ (the
// new one supersedes it) and merges into it when they agree; a fact without
// one merges into a near-duplicate; the caps apply. It writes under a lock
// per user (lockUser) and moves the cursor in the same transaction, so no
// message is read twice. It returns how many facts it wrote or merged.
func (s *Store) Extract(ctx context.Context, scope yakor.Scope, upTo int64) (int, error) {
	return s.extractUpTo(ctx, scope, upTo, nil)
}

// Said is what one user message said: the facts to keep and what to
// forget.
type Said struct {
	Facts  []Candidate
	Forget []string
}

// ExtractRead is Extract with the messages already read by the caller
// (the turn's one helper call, package upkeep): a user message in read
// says what read holds, one missing from it is read offline, never by
// this store's helper model.
func (s *Store) ExtractRead(ctx context.Context, scope yakor.Scope, upTo int64, read map[int64]Said) (int, error) {
	if read == nil {
		read = map[int64]Said{}
	}
	return s.extractUpTo(ctx, scope, upTo, read)
}

// extractUpTo is Extract, reading the messages from read when it is not
// nil.
func (s *Store) extractUpTo(ctx context.Context, scope yakor.Scope, upTo int64, read map[int64]Said) (int, error) {
	total := 0
	for {
		n, more, err := s.extractBatch(ctx, scope, upTo, read)
		total += n
		if err != nil || !more {
			return total, err
		}
	}
}

// extractBatch is one batch of Extract: up to factBatch messages. more
// reports that messages up to upTo are left. It reads the batch, asks the
// helper with no transaction open, then writes what it found in one short
// transaction that re-checks the cursor it read: when another writer (a
// retry, a second worker) moved it meanwhile, nothing is written and the
// batch is read again from there.
func (s *Store) extractBatch(ctx context.Context, scope yakor.Scope, upTo int64, read map[int64]Said) (n int, more bool, err error) {
	cursor, err := readFactCursor(ctx, s.db, scope)
	if err != nil {
		return 0, false, postgres.Wrap("extract facts", err)
	}
	msgs, err := history.NewStore(s.db).Messages(ctx, scope, history.MessageFilter{AfterID: cursor, Limit: factBatch})
	if err != nil {
		return 0, false, err
	}
	more = len(msgs) == factBatch
	said, through, stopped := s.extractAll(ctx, msgs, cursor, upTo, read)
	if stopped {
		more = false
	}
	if through == cursor {
		return 0, more, nil
	}
	err = pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		if err := lockUser(ctx, tx, scope); err != nil {
			return err
		}
		if now, err := readFactCursor(ctx, tx, scope); err != nil || now != cursor {
			return cmp.Or(err, errCursorMoved)
		}
		if n, err = s.applyFound(ctx, tx, scope, said); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO fact_cursors (tenant_id, thread_id, through_id) VALUES ($1, $2, $3)
ON CONFLICT (tenant_id, thread_id) DO UPDATE SET through_id = excluded.through_id, updated_at = excluded.updated_at`, scope.TenantID, scope.ThreadParam(), through)
		return err
	})
	if errors.Is(err, errCursorMoved) {
		return 0, true, nil // another writer got there first: read on from its cursor
	}
	if err != nil {
		return 0, false, postgres.Wrap("extract facts", err)
	}
	return n, more, nil
}

// lockUser makes tx the one writer of scope's user's facts until it ends:
// the threads of one user share their user and project facts, and two
// writes updating the same rows in different orders would deadlock.
func lockUser(ctx context.Context, tx pgx.Tx, scope yakor.Scope) error {
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1::text || ':' || $2::text, 7418550))`, scope.TenantID, scope.UserID)
	return err
}

// errCursorMoved is a batch's write finding the thread's fact cursor moved
// since the batch read it.
var errCursorMoved = errors.New("facts: the cursor moved")

// found is what one user message said.
type found struct {
	messageID int64
	Said
}

// extractAll asks for the facts of each user message of msgs up to upTo
// (the other messages are their context), with no transaction open. It
// returns them, the last message read, and whether upTo cut the batch.
func (s *Store) extractAll(ctx context.Context, msgs []history.Message, cursor, upTo int64, read map[int64]Said) (out []found, through int64, stopped bool) {
	through = cursor
	var context strings.Builder
	for _, m := range msgs {
		if upTo > 0 && m.ID > upTo {
			return out, through, true
		}
		through = m.ID
		if m.Role != history.RoleUser || m.Kind != history.KindMessage {
			context.WriteString(m.Role + ": " + cut(m.Content, 500) + "\n")
			continue
		}
		said, ok := read[m.ID]
		switch {
		case ok:
		case read == nil:
			said = s.extract(ctx, m, context.String())
		default:
			said = offlineSaid(m.Content, m.CreatedAt)
		}
		out = append(out, found{messageID: m.ID, Said: said})
		context.WriteString("user: " + cut(m.Content, 500) + "\n")
	}
	return out, through, false
}

// applyFound writes what the messages said, in tx: the forgetting first,
// then the facts, message by message.
func (s *Store) applyFound(ctx context.Context, tx pgx.Tx, scope yakor.Scope, all []found) (int, error) {
	project, err := threadProject(ctx, tx, scope)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, f := range all {
		for _, phrase := range f.Forget {
			k, err := forgetFacts(ctx, tx, scope, project, phrase)
			if err != nil {
				return n, err
			}
			n += k
		}
		for _, c := range f.Facts {
			if err := s.applyFact(ctx, tx, scope, project, f.messageID, c); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// readFactCursor is the last message of scope's thread whose facts were
// taken (0: none).
func readFactCursor(ctx context.Context, db interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}, scope yakor.Scope) (int64, error) {
	var cursor int64
	err := db.QueryRow(ctx, `SELECT through_id FROM fact_cursors WHERE tenant_id = $1 AND thread_id = $2`, scope.TenantID, scope.ThreadParam()).Scan(&cursor)
	if _, err := postgres.Found("read fact cursor", err); err != nil {
		return 0, err
	}
	return cursor, nil
}

// extract asks the helper model for a message's facts, or the offline
// extractor.
func (s *Store) extract(ctx context.Context, m history.Message, context string) Said {
	if s.helper != nil {
		res, err := s.helper.Complete(ctx, Request(m.Content, context))
		if err == nil {
			cands, forget, err := Parse(res.Text)
			if err == nil {
				return Said{Facts: cands, Forget: forget}
			}
		}
		s.log.WarnContext(ctx, "helper fact extraction failed; using the offline extractor", "err", err)
	}
	return offlineSaid(m.Content, m.CreatedAt)
}

// offlineSaid is what the offline extractor reads in message, said at at.
func offlineSaid(message string, at time.Time) Said {
	facts, forget := Offline(message, at)
	return Said{Facts: facts, Forget: forget}
}

// applyFact stores one candidate from message msgID.
func (s *Store) applyFact(ctx context.Context, tx pgx.Tx, scope yakor.Scope, project string, msgID int64, c Candidate) error {
	c.Text = cut(strings.TrimSpace(c.Text), MaxChars)
	if c.Text == "" || !validKind(c.Kind) || history.ValidText("text", c.Text, MaxChars) != nil {
		return nil
	}
	thread := ""
	switch c.Scope {
	case ScopeChat:
		thread = scope.ThreadID
	case ScopeUser, ScopeProject:
	default:
		return nil
	}
	if c.Scope != ScopeProject {
		project = ""
	}
	// The current facts of the same scope and target.
	const q = `SELECT id, slot, text, value FROM facts
WHERE tenant_id = $1 AND user_id = $2 AND scope = $3 AND valid_to IS NULL
  AND ($3 <> 'chat' OR thread_id = nullif($4, '')::uuid)
  AND ($3 <> 'project' OR project_id IS NOT DISTINCT FROM nullif($5, '')::uuid)
  AND ($6 = '' OR slot = $6)`
	rows, err := tx.Query(ctx, q, scope.TenantID, scope.UserID, c.Scope, thread, project, c.Slot)
	if err != nil {
		return err
	}
	type current struct {
		ID                int64
		Slot, Text, Value string
	}
	cur, err := pgx.CollectRows(rows, pgx.RowToStructByName[current])
	if err != nil {
		return err
	}
	var superseded []int64
	for _, f := range cur {
		same := c.Slot != "" && words.Fold(f.Value) == words.Fold(c.Value) || words.Similarity(f.Text, c.Text) >= 0.8 || words.Fold(f.Text) == words.Fold(c.Text)
		if same {
			_, err := tx.Exec(ctx, `UPDATE facts SET source_message_ids = array_append(source_message_ids, $3), confidence = greatest(confidence, $4),
    last_used_at = now(), updated_at = now() WHERE tenant_id = $1 AND id = $2 AND NOT source_message_ids @> ARRAY[$3::bigint]`,
				scope.TenantID, f.ID, msgID, c.Confidence)
			return err
		}
		if c.Slot != "" {
			superseded = append(superseded, f.ID)
		}
	}
	const ins = `INSERT INTO facts (tenant_id, user_id, scope, thread_id, project_id, kind, slot, text, value, confidence, source, source_message_ids)
VALUES ($1, $2, $3, nullif($4, '')::uuid, nullif($5, '')::uuid, $6, $7, $8, $9, $10, 'extractor', ARRAY[$11::bigint]) RETURNING id`
	var id int64
	if err := tx.QueryRow(ctx, ins, scope.TenantID, scope.UserID, c.Scope, thread, project, c.Kind, c.Slot, c.Text, c.Value, c.Confidence, msgID).Scan(&id); err != nil {
		return fmt.Errorf("store fact: %w", err)
	}
	if len(superseded) > 0 {
		if _, err := tx.Exec(ctx, `UPDATE facts SET valid_to = now(), superseded_by = $3, closed_reason = 'superseded', updated_at = now()
WHERE tenant_id = $1 AND id = ANY($2)`, scope.TenantID, superseded, id); err != nil {
			return err
		}
	}
	return s.enforceCaps(ctx, tx, scope.TenantID, scope.UserID, c.Scope, thread, project)
}

// forgetFacts closes the current facts the thread sees that phrase names:
// those holding most of its keywords. It returns how many.
func forgetFacts(ctx context.Context, tx pgx.Tx, scope yakor.Scope, project, phrase string) (int, error) {
	kws := words.Keywords(phrase, nil)
	if len(kws) == 0 {
		return 0, nil
	}
	rows, err := tx.Query(ctx, visibleSQL, scope.TenantID, scope.UserID, scope.ThreadParam(), project)
	if err != nil {
		return 0, err
	}
	facts, err := pgx.CollectRows(rows, scanFact)
	if err != nil {
		return 0, err
	}
	var ids []int64
	for _, f := range facts {
		folded := words.Fold(f.Text + " " + f.Value)
		hit := 0
		for _, k := range kws {
			if strings.Contains(folded, k.Stem) {
				hit++
			}
		}
		if 2*hit >= len(kws) && hit > 0 {
			ids = append(ids, f.ID)
		}
	}
	if len(ids) == 0 {
		return 0, nil
	}
	_, err = tx.Exec(ctx, `UPDATE facts SET valid_to = now(), closed_reason = 'forgotten', updated_at = now()
WHERE tenant_id = $1 AND user_id = $2 AND id = ANY($3)`, scope.TenantID, scope.UserID, ids)
	return len(ids), err
}
