package anchors

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/history"
	"yakor/postgres"
)

// This file is the storage of anchoring (Service.Apply): load reads where
// a thread's anchoring stands, with no transaction; writeBatch writes what
// the decision loop (apply.go) decided, in the caller's transaction, after
// checking under the thread's lock that what was read still holds.

// errChanged means a thread changed between the read of a batch and its
// write: the batch is dropped and decided again.
var errChanged = errors.New("the thread's anchors changed while its messages were read")

// load reads scope's thread's cursor and, unless it is at upTo already,
// the messages after it up to upTo, the newest window anchors (and the
// current one) and the thread's authors.
func load(ctx context.Context, db DB, scope yakor.Scope, upTo int64, window int) (state, []message, error) {
	st, err := readCursor(ctx, db, scope, false)
	if err != nil || st.last >= upTo {
		return st, nil, err
	}
	hist := history.NewStore(db)
	read, err := hist.Between(ctx, scope, st.last, upTo)
	if err != nil {
		return st, nil, err
	}
	msgs := make([]message, len(read))
	for i, m := range read {
		msgs[i] = message{ID: m.ID, Role: m.Role, Content: m.Content, Chars: int64(m.Chars), At: m.CreatedAt, Author: m.Author}
	}
	if st.anchors, err = recentAnchors(ctx, db, scope, window, st.currentID, false); err != nil {
		return st, nil, err
	}
	if st.authors, err = hist.ThreadAuthors(ctx, scope); err != nil {
		return st, nil, err
	}
	return st, msgs, nil
}

// readCursor reads how far scope's thread is anchored (zero when it never
// was), locking the cursor's row for the transaction when forUpdate.
func readCursor(ctx context.Context, db DB, scope yakor.Scope, forUpdate bool) (state, error) {
	q := `SELECT last_message_id, coalesce(current_id, 0), chars_total, current_since, off_topic FROM anchor_cursors WHERE tenant_id = $1 AND thread_id = $2`
	if forUpdate {
		q += ` FOR UPDATE`
	}
	var st state
	err := db.QueryRow(ctx, q, scope.TenantID, scope.ThreadID).Scan(&st.last, &st.currentID, &st.charsTotal, &st.currentSince, &st.offTopic)
	if _, err := postgres.Found("cursor", err); err != nil {
		return state{}, err
	}
	return st, nil
}

// readAnchorData reads an anchor's data.
func readAnchorData(ctx context.Context, db DB, scope yakor.Scope, id int64) (string, error) {
	var data string
	if err := db.QueryRow(ctx, `SELECT data FROM microgoals WHERE tenant_id = $1 AND id = $2`, scope.TenantID, id).Scan(&data); err != nil {
		return "", postgres.Wrap("read anchor", err)
	}
	return data, nil
}

// writeBatch writes b, decided from st for scope's thread up to upTo,
// once checkUnchanged finds st still holds, and returns its decisions with
// the ids of the anchors it inserted.
func writeBatch(ctx context.Context, tx pgx.Tx, scope yakor.Scope, st state, b batch, upTo int64) ([]Applied, error) {
	if err := checkUnchanged(ctx, tx, scope, st, b.read); err != nil {
		return nil, err
	}
	ids := insertedIDs{}
	out := make([]Applied, 0, len(b.steps))
	for _, s := range b.steps {
		switch {
		case s.insert != nil:
			id, err := insertAnchor(ctx, tx, scope, *s.insert)
			if err != nil {
				return nil, err
			}
			ids[s.insert.ID] = id
		case s.rewrite != nil:
			w := *s.rewrite
			w.id, w.absorbed = ids.of(w.id), ids.of(w.absorbed)
			if err := rewriteAnchor(ctx, tx, scope, w); err != nil {
				return nil, err
			}
		}
		a := s.applied
		a.AnchorID, a.Outcome.TargetID = ids.of(a.AnchorID), ids.of(a.Outcome.TargetID)
		if err := recordDecision(ctx, tx, scope, a, s.topic); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	for _, f := range b.folds {
		if err := foldAnchors(ctx, tx, scope, f, ids); err != nil {
			return nil, err
		}
	}
	return out, saveCursor(ctx, tx, scope, cursor{last: max(upTo, st.last), currentID: ids.of(b.currentID), charsTotal: b.charsTotal,
		currentSince: b.currentSince, offTopic: b.offTopic})
}

// insertedIDs maps the pending ids of a batch's anchors to the ids they
// were inserted with.
type insertedIDs map[int64]int64

// of returns the stored id of id, pending or not.
func (ids insertedIDs) of(id int64) int64 {
	if stored, ok := ids[id]; ok {
		return stored
	}
	return id
}

// checkUnchanged takes scope's thread's lock and checks that its cursor is
// still st's and that the anchors of read still hold the data read, and
// locks their rows, then the cursor's (the order DeleteAnchor and
// DeleteUser take them in); errChanged if not.
func checkUnchanged(ctx context.Context, tx pgx.Tx, scope yakor.Scope, st state, read map[int64]string) error {
	if err := lockThread(ctx, tx, scope); err != nil {
		return err
	}
	if err := checkAnchors(ctx, tx, scope, read); err != nil {
		return err
	}
	now, err := readCursor(ctx, tx, scope, true)
	if err != nil {
		return err
	}
	if now.last != st.last || now.currentID != st.currentID || now.charsTotal != st.charsTotal ||
		now.currentSince != st.currentSince || now.offTopic != st.offTopic {
		return errChanged
	}
	return nil
}

// lockThread takes scope's thread's anchoring lock for the transaction
// (DeleteThread takes it too).
func lockThread(ctx context.Context, tx pgx.Tx, scope yakor.Scope) error {
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 7))`, scope.ThreadID)
	return postgres.Wrap("lock thread", err)
}

// checkAnchors locks the rows of the anchors of read and checks each still
// holds the data read (errChanged if not, or if it is gone or merged).
func checkAnchors(ctx context.Context, tx pgx.Tx, scope yakor.Scope, read map[int64]string) error {
	if len(read) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(read))
	for id := range read {
		ids = append(ids, id)
	}
	rows, err := tx.Query(ctx, `SELECT id, data FROM microgoals WHERE tenant_id = $1 AND id = ANY($2) AND merged_into IS NULL ORDER BY id FOR UPDATE`,
		scope.TenantID, ids)
	if err != nil {
		return postgres.Wrap("check anchors", err)
	}
	now, err := pgx.CollectRows(rows, pgx.RowToStructByName[anchorData])
	if err != nil {
		return postgres.Wrap("check anchors", err)
	}
	if len(now) != len(read) {
		return errChanged
	}
	for _, a := range now {
		if read[a.ID] != a.Data {
			return errChanged
		}
	}
	return nil
}

// anchorData is an anchor's id and data.
type anchorData struct {
	ID   int64
	Data string
}

// insertAnchor inserts a, set in scope's thread, and returns its id.
func insertAnchor(ctx context.Context, tx pgx.Tx, scope yakor.Scope, a Anchor) (int64, error) {
	var id int64
	if err := tx.QueryRow(ctx, `INSERT INTO microgoals (tenant_id, user_id, thread_id, topic, data, message_id, char_pos, first_at, last_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING id`,
		scope.TenantID, scope.UserID, scope.ThreadID, a.Topic, a.Data, a.MessageID, a.CharPos, timeOrNow(a.FirstAt)).Scan(&id); err != nil {
		return 0, postgres.Wrap("new anchor", err)
	}
	return id, nil
}

// rewriteAnchor sets an anchor's data and, when w absorbs a detour,
// records it there and marks the detour merged into it.
func rewriteAnchor(ctx context.Context, tx pgx.Tx, scope yakor.Scope, w rewrite) error {
	absorbed := nullID(w.absorbed)
	if _, err := tx.Exec(ctx, `UPDATE microgoals SET data = $3, updated_at = now(), last_at = greatest(last_at, $5),
    absorbed = CASE WHEN $4::bigint IS NULL THEN absorbed ELSE array_append(absorbed, $4::bigint) END
WHERE tenant_id = $1 AND id = $2`, scope.TenantID, w.id, w.data, absorbed, timeOrNow(w.lastAt)); err != nil {
		return postgres.Wrap("update anchor", err)
	}
	if absorbed == nil {
		return nil
	}
	_, err := tx.Exec(ctx, `UPDATE microgoals SET merged_into = $3 WHERE tenant_id = $1 AND id = $2`, scope.TenantID, w.absorbed, w.id)
	return postgres.Wrap("merge anchor", err)
}

// foldAnchors writes a fold: f's target becomes an episode and its
// members are merged into it (ids maps the batch's pending ids).
func foldAnchors(ctx context.Context, tx pgx.Tx, scope yakor.Scope, f foldOp, ids insertedIDs) error {
	stored := func(in []int64) []int64 {
		out := make([]int64, len(in))
		for i, id := range in {
			out[i] = ids.of(id)
		}
		return out
	}
	members := stored(f.members)
	target := ids.of(f.target)
	if _, err := tx.Exec(ctx, `UPDATE microgoals SET episode = true, topic = $3, data = $4, first_at = $5, last_at = $6, updated_at = now(),
    absorbed = absorbed || $7::bigint[]
WHERE tenant_id = $1 AND id = $2`, scope.TenantID, target, f.topic, f.data, timeOrNow(f.firstAt), timeOrNow(f.lastAt), stored(f.absorbed)); err != nil {
		return postgres.Wrap("fold anchors", err)
	}
	_, err := tx.Exec(ctx, `UPDATE microgoals SET merged_into = $2 WHERE tenant_id = $1 AND id = ANY($3)`, scope.TenantID, target, members)
	return postgres.Wrap("fold anchors", err)
}

// recordDecision records the decision a taken for a message whose
// extracted topic was topic; a message decided before keeps its record.
func recordDecision(ctx context.Context, tx pgx.Tx, scope yakor.Scope, a Applied, topic string) error {
	o := a.Outcome
	_, err := tx.Exec(ctx, `INSERT INTO anchor_decisions (tenant_id, thread_id, message_id, decision, rule, anchor_id, similarity, source, topic)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
		scope.TenantID, scope.ThreadID, a.MessageID, string(o.Decision), o.Rule, nullID(a.AnchorID), o.Similarity, a.Source, topic)
	return postgres.Wrap("record decision", err)
}

// cursor is where a thread's anchoring stands after a batch (see state).
type cursor struct {
	last, currentID, charsTotal, currentSince int64
	offTopic                                  int
}

// saveCursor moves scope's thread's cursor to c.last, with its current
// anchor (0: none), characters so far and the current topic's position.
func saveCursor(ctx context.Context, tx pgx.Tx, scope yakor.Scope, c cursor) error {
	_, err := tx.Exec(ctx, `INSERT INTO anchor_cursors (tenant_id, thread_id, last_message_id, current_id, chars_total, current_since, off_topic)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (tenant_id, thread_id) DO UPDATE SET last_message_id = $3, current_id = $4, chars_total = $5, current_since = $6, off_topic = $7`,
		scope.TenantID, scope.ThreadID, c.last, nullID(c.currentID), c.charsTotal, c.currentSince, c.offTopic)
	if err != nil {
		return postgres.Wrap("advance cursor", err)
	}
	return nil
}

// timeOrNow is t, or now when it is unknown.
func timeOrNow(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now()
	}
	return t
}

func nullID(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}
