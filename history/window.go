package history

import (
	"cmp"
	"context"
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
	if budget <= 0 {
		return nil, nil
	}
	b := &pgx.Batch{}
	b.Queue(latestSummarySQL, scope.TenantID, scope.UserID, scope.ThreadParam(), beforeID)
	b.Queue(headSQL, scope.TenantID, scope.UserID, scope.ThreadParam())
	b.Queue(windowSQL, scope.TenantID, scope.UserID, scope.ThreadParam(), beforeID, windowFirstPage, int64(0), budget)
	sum, head, page, err := readWindowStart(s.db.SendBatch(ctx, b))
	if err != nil {
		return nil, postgres.Wrap("load window", err)
	}
	var lead []Message // the first exchange and the summary
	after := int64(0)  // the window's messages come after this one
	if len(sum) == 1 {
		after = sum[0].SummaryThrough
		used := sum[0].Chars
		for _, m := range firstExchange(head, after) {
			if used+m.Chars <= budget {
				lead = append(lead, m)
				used += m.Chars
			}
		}
		lead = append(lead, sum[0])
		budget -= used
	}
	w := windowFill{left: budget, after: after}
	for size := windowFirstPage; w.add(page) && len(page) == size; {
		// The page was whole and fit: the window goes on before it.
		size = min(size*2, 1024)
		rows, err := s.db.Query(ctx, windowSQL, scope.TenantID, scope.UserID, scope.ThreadParam(), w.msgs[len(w.msgs)-1].ID, size, after, w.left)
		if err == nil {
			page, err = pgx.CollectRows(rows, scanMessage)
		}
		if err != nil {
			return nil, postgres.Wrap("load window", err)
		}
	}
	return append(lead, reverse(w.msgs)...), nil
}

// readWindowStart reads Window's batch: the newest summary (none or one),
// the thread's head up to it, the window's first page.
func readWindowStart(br pgx.BatchResults) (sum, head, page []Message, err error) {
	defer br.Close()
	for _, out := range []*[]Message{&sum, &head, &page} {
		rows, err := br.Query()
		if err == nil {
			*out, err = pgx.CollectRows(rows, scanMessage)
		}
		if err != nil {
			return nil, nil, nil, err
		}
	}
	return sum, head, page, br.Close()
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
