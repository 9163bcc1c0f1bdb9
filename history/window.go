package history

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/postgres"
)

// windowSQL reads a page of the window, newest first, and returns its
// messages while their characters, with the newer ones', fit in $7: $1
// tenant, $2 user, $3 thread, $4 before id (0: all), $5 rows, $6 after id.
// What does not fit is read but not sent; the rows come in no set order.
var windowSQL = `SELECT id, thread_id, role, kind, content, chars, author, client_id, turn_id, created_at, summary_through, meta, chain, superseded_at
FROM (
    SELECT id, thread_id::text AS thread_id, role, kind, content, chars, author, coalesce(client_id, '') AS client_id,
        coalesce(turn_id::text, '') AS turn_id, created_at, coalesce(summary_through, 0) AS summary_through, meta, chain, superseded_at,
        sum(chars) OVER (` + postgres.NewestFirst + `) AS run
    FROM messages
    WHERE tenant_id = $1 AND user_id = $2 AND ` + postgres.OneThread("$3") + ` AND ($4 = 0 OR id < $4) AND id > $6
      AND kind <> 'summary' AND superseded_at IS NULL
    ` + postgres.NewestFirst + ` LIMIT $5
) w
WHERE run <= $7`

// headSQL reads a thread's first two messages: $1 tenant, $2 user, $3
// thread.
var headSQL = `SELECT ` + messageColumns + ` FROM messages
WHERE tenant_id = $1 AND user_id = $2 AND ` + postgres.OneThread("$3") + ` AND kind <> 'summary' AND superseded_at IS NULL
` + postgres.OldestFirst + ` LIMIT 2`

// windowFirstPage is how many messages the window's first page reads: a
// window of 20,000 characters holds about a hundred short messages.
const windowFirstPage = 128

// Window returns the newest whole messages of scope's thread older than
// beforeID (0: all) whose characters sum to at most budget: it takes
// messages newest first, stops at the first that does not fit, and returns
// them oldest first. Once the thread has a summary, the window starts at
// the newest one: the thread's first exchange (kept verbatim) and the
// summary come first, then the newest messages after what the summary
// covers. The summary, the first exchange and the window's first page are
// read in one round trip; a window longer than that page is read on in
// growing pages, so its cost follows the window's size, not the thread's.
func (s *Store) Window(ctx context.Context, scope yakor.Scope, budget int, beforeID int64) ([]Message, error) {
	b := &pgx.Batch{}
	w := s.QueueWindow(b, scope, budget, beforeID)
	if b.Len() > 0 {
		br := s.db.SendBatch(ctx, b)
		err := w.Read(br)
		if cerr := br.Close(); err == nil {
			err = postgres.Wrap("load window", cerr)
		}
		if err != nil {
			return nil, err
		}
	}
	return w.Messages(ctx)
}

// WindowRead is a window whose first reads are queued in a caller's batch
// (QueueWindow), so that they share its round trip.
type WindowRead struct {
	s               *Store
	scope           yakor.Scope
	budget          int
	sum, head, page []Message
	readDone        bool
}

// QueueWindow queues in b the reads Window starts with: the newest summary,
// the thread's head and the window's first page. Once b is sent, Read reads
// their results (in b's order); once the batch is closed, Messages
// completes the window.
func (s *Store) QueueWindow(b *pgx.Batch, scope yakor.Scope, budget int, beforeID int64) *WindowRead {
	w := &WindowRead{s: s, scope: scope, budget: budget}
	if budget <= 0 {
		return w
	}
	b.Queue(latestSummarySQL, scope.TenantID, scope.UserID, scope.ThreadParam(), beforeID)
	b.Queue(headSQL, scope.TenantID, scope.UserID, scope.ThreadParam())
	b.Queue(windowSQL, scope.TenantID, scope.UserID, scope.ThreadParam(), beforeID, windowFirstPage, int64(0), budget)
	return w
}

// Read reads the window's results from br: the newest summary (none or
// one), the thread's head, the window's first page.
func (w *WindowRead) Read(br pgx.BatchResults) error {
	if w.budget <= 0 { // nothing queued
		return nil
	}
	for _, out := range []*[]Message{&w.sum, &w.head, &w.page} {
		rows, err := br.Query()
		if err == nil {
			*out, err = pgx.CollectRows(rows, scanMessage)
		}
		if err != nil {
			return postgres.Wrap("load window", err)
		}
	}
	w.readDone = true
	return nil
}

// Messages returns the window, reading on past its first page when that
// page was whole and fit (call it after the batch is closed: it may send
// statements of its own).
func (w *WindowRead) Messages(ctx context.Context) ([]Message, error) {
	if w.budget <= 0 {
		return nil, nil
	}
	if !w.readDone {
		return nil, errors.New("load window: Messages before Read")
	}
	budget, sum, scope := w.budget, w.sum, w.scope
	var lead []Message // the first exchange and the summary
	after := int64(0)  // the window's messages come after this one
	if len(sum) == 1 {
		after = sum[0].SummaryThrough
		used := sum[0].Chars
		for _, m := range firstExchange(w.head, after) {
			if used+m.Chars <= budget {
				lead = append(lead, m)
				used += m.Chars
			}
		}
		lead = append(lead, sum[0])
		budget -= used
	}
	fill := windowFill{left: budget, after: after}
	for size, page := windowFirstPage, w.page; fill.add(page) && len(page) == size; {
		// The page was whole and fit: the window goes on before it.
		size = min(size*2, 1024)
		rows, err := w.s.db.Query(ctx, windowSQL, scope.TenantID, scope.UserID, scope.ThreadParam(), fill.msgs[len(fill.msgs)-1].ID, size, after, fill.left)
		if err == nil {
			page, err = pgx.CollectRows(rows, scanMessage)
		}
		if err != nil {
			return nil, postgres.Wrap("load window", err)
		}
	}
	return append(lead, reverse(fill.msgs)...), nil
}

// windowFill takes a window's messages, newest first, while they fit and
// are after what the summary covers.
type windowFill struct {
	msgs  []Message // newest first
	left  int       // characters
	after int64     // the summary's end (0: none)
}

// add takes page's messages newest first while they fit, and reports
// whether all of them did.
func (w *windowFill) add(page []Message) bool {
	slices.SortFunc(page, func(a, b Message) int { return cmp.Compare(b.ID, a.ID) })
	for _, m := range page {
		if m.ID <= w.after || m.Chars > w.left {
			return false
		}
		w.left -= m.Chars
		w.msgs = append(w.msgs, m)
	}
	return true
}
