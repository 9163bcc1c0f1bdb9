package history

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/llm"
	"yakor/postgres"
	"yakor/words"
)

// latestSummary returns the newest summary row of scope's thread older
// than beforeID (0: any).
func (s *Store) latestSummary(ctx context.Context, scope yakor.Scope, beforeID int64) (Message, bool, error) {
	rows, err := s.db.Query(ctx, latestSummarySQL, scope.TenantID, scope.UserID, scope.ThreadParam(), beforeID)
	if err != nil {
		return Message{}, false, postgres.Wrap("find summary", err)
	}
	m, err := pgx.CollectExactlyOneRow(rows, scanMessage)
	if found, err := postgres.Found("find summary", err); !found {
		return Message{}, false, err
	}
	return m, true, nil
}

// latestSummarySQL reads the newest summary row of a thread older than an
// id: $1 tenant, $2 user, $3 thread, $4 before id (0: any).
const latestSummarySQL = `SELECT ` + messageColumns + ` FROM messages
WHERE tenant_id = $1 AND user_id = $2 AND thread_id = $3 AND kind = 'summary' AND ($4 = 0 OR id < $4)
ORDER BY id DESC LIMIT 1`

// firstExchange is head (the thread's first two messages) when they are a
// user's message and a reply that a summary through covers, else nothing.
func firstExchange(head []Message, through int64) []Message {
	if len(head) == 2 && head[0].Role == RoleUser && head[1].Role == RoleAssistant && head[1].ID <= through {
		return head
	}
	return nil
}

// WriteSummary stores the summary of scope's thread's messages up to
// through. Its client id is derived from through, so writing the same
// summary twice, or from two writers at once, stores one row; the second
// write returns the first row with created false.
func (s *Store) WriteSummary(ctx context.Context, scope yakor.Scope, through int64, text string) (Message, bool, error) {
	if err := ValidateContent(text, 0); err != nil {
		return Message{}, false, err
	}
	clientID := "summary:" + strconv.FormatInt(through, 10)
	// VALUES, not a SELECT of the thread's row: Citus runs an INSERT …
	// SELECT that makes identities through the coordinator, over every
	// shard. The thread's key holds the row to a thread of the tenant.
	const q = `INSERT INTO messages (tenant_id, user_id, thread_id, role, kind, content, client_id, summary_through)
VALUES ($1, $2, $3, 'system', 'summary', $4, $5, $6)
ON CONFLICT (tenant_id, thread_id, client_id) WHERE client_id IS NOT NULL DO NOTHING
RETURNING ` + messageColumns
	rows, err := s.db.Query(ctx, q, scope.TenantID, scope.UserID, scope.ThreadParam(), text, clientID, through)
	if err != nil {
		return Message{}, false, postgres.Wrap("write summary", err)
	}
	m, err := pgx.CollectExactlyOneRow(rows, scanMessage)
	created, err := postgres.Found("write summary", err)
	if err != nil {
		return Message{}, false, err
	}
	if !created { // the client id is taken: it was written before
		m, err := s.FindByClientID(ctx, scope, clientID)
		return m, false, err
	}
	return m, true, nil
}

// DeleteSummaries deletes scope's thread's summary rows (and their pass
// records); the window goes back to the plain newest messages. It returns
// how many rows it deleted.
func (s *Store) DeleteSummaries(ctx context.Context, scope yakor.Scope) (int, error) {
	if _, err := s.db.Exec(ctx, `DELETE FROM compactions WHERE tenant_id = $1 AND thread_id = $2`, scope.TenantID, scope.ThreadParam()); err != nil {
		return 0, postgres.Wrap("delete summaries", err)
	}
	tag, err := s.db.Exec(ctx, `DELETE FROM messages WHERE tenant_id = $1 AND user_id = $2 AND thread_id = $3 AND kind = 'summary'`,
		scope.TenantID, scope.UserID, scope.ThreadParam())
	if err != nil {
		return 0, postgres.Wrap("delete summaries", err)
	}
	return int(tag.RowsAffected()), nil
}

// Flusher keeps the durable facts of a thread's messages up to a message
// (the facts package's Store): compaction calls it before summarizing them.
type Flusher interface {
	Extract(ctx context.Context, scope yakor.Scope, upTo int64) (int, error)
}

// Completer is the helper model.
type Completer interface {
	Complete(ctx context.Context, req llm.Request) (llm.Result, error)
}

// CompactConfig tunes compaction.
type CompactConfig struct {
	WindowChars  int // the window's budget; compaction starts when what it would hold exceeds it; default 20,000
	TailChars    int // the newest messages kept verbatim; default half the window
	SummaryChars int // the summary's size at most; default a quarter of the window, at most 4,000
	MinSave      int // a pass must save at least this many characters; default 2,000
}

// DefaultCompactConfig is compaction's configuration unless told
// otherwise (for the default window).
func DefaultCompactConfig() CompactConfig {
	var c CompactConfig
	c.defaults()
	return c
}

func (c *CompactConfig) defaults() {
	c.WindowChars = cmp.Or(max(c.WindowChars, 0), 20_000)
	c.TailChars = cmp.Or(max(c.TailChars, 0), c.WindowChars/2)
	if c.SummaryChars <= 0 {
		// A summary that filled the window would leave no room for the
		// messages it precedes.
		c.SummaryChars = min(4000, max(c.WindowChars/4, 500))
	}
	c.MinSave = cmp.Or(max(c.MinSave, 0), 2000)
}

// Compactor keeps long threads within their window: it summarizes what is
// about to scroll out.
type Compactor struct {
	store  *Store
	flush  Flusher   // nil: no memory flush
	helper Completer // nil: the offline summary
	cfg    CompactConfig
	log    *slog.Logger
}

// NewCompactor returns a Compactor. flush and helper may be nil.
func NewCompactor(store *Store, flush Flusher, helper Completer, cfg CompactConfig, log *slog.Logger) *Compactor {
	cfg.defaults()
	return &Compactor{store: store, flush: flush, helper: helper, cfg: cfg, log: log}
}

// passMessages is the most messages one pass reads.
const passMessages = 2000

// Compacted says what a pass did.
type Compacted struct {
	Summary Message // the summary row written (zero when none)
	Covered int     // messages it covers that the previous summary did not
	Saved   int     // characters the window no longer needs to hold
	Skipped string  // why nothing was done
}

// CompactAll runs passes until the thread's window holds everything since
// its newest summary, or a pass finds nothing worth doing (at most 50).
func (c *Compactor) CompactAll(ctx context.Context, scope yakor.Scope) (int, error) {
	for n := 0; n < 50; n++ {
		r, err := c.Compact(ctx, scope)
		if err != nil || r.Skipped != "" {
			return n, err
		}
	}
	return 50, nil
}

// Compact compacts scope's thread when its window would overflow: the
// messages after the newest summary no longer fit the window budget. In
// order: a cheap pass without a model (old tool outputs shrunk, repeats
// dropped); the first exchange and the newest tail (TailChars) kept
// verbatim; the durable facts of the middle flushed; the middle summarized
// (helper model, or offline) into resolved · pending · active task, merged
// with the previous summary, and stored as a summary row; skipped when it
// would save little, or recent passes did (anti-thrash). Nothing is
// deleted: every message stays listed and searchable.
func (c *Compactor) Compact(ctx context.Context, scope yakor.Scope) (Compacted, error) {
	prev, hasPrev, err := c.store.latestSummary(ctx, scope, 0)
	if err != nil {
		return Compacted{}, err
	}
	middle, skipped, err := c.toSummarize(ctx, scope, prev, hasPrev)
	if err != nil || skipped != "" {
		return Compacted{Skipped: skipped}, err
	}
	through := middle[len(middle)-1].ID
	cheap, _ := CheapPass(middle)
	var prevSum Summary
	if hasPrev {
		prevSum, _ = ParseSummary(prev.Content)
	}
	middleChars := 0
	for _, m := range middle {
		middleChars += m.Chars
	}
	recent, err := c.recentSavings(ctx, scope)
	if err != nil {
		return Compacted{}, err
	}
	if !Worth(middleChars-c.cfg.SummaryChars, recent, c.cfg.MinSave) {
		return Compacted{Skipped: "it would save little"}, nil
	}
	if c.flush != nil {
		if _, err := c.flush.Extract(ctx, scope, through); err != nil {
			return Compacted{}, fmt.Errorf("compact: flush facts: %w", err)
		}
	}
	sum := c.summarize(ctx, prevSum, cheap)
	first := middle[0].ID
	if hasPrev {
		if ps, ok := parseRange(prev.Content); ok {
			first = ps
		}
	}
	text := sum.Render(words.Lang(joinContent(cheap)), first, through)
	row, created, err := c.store.WriteSummary(ctx, scope, through, text)
	if err != nil {
		return Compacted{}, err
	}
	saved := middleChars - row.Chars
	if hasPrev {
		saved += prev.Chars
	}
	if created {
		if err := c.record(ctx, scope, row.ID, through, saved); err != nil {
			return Compacted{}, err
		}
		c.log.InfoContext(ctx, "thread compacted", "thread", scope.ThreadID, "through", through, "messages", len(middle), "saved_chars", saved)
	}
	return Compacted{Summary: row, Covered: len(middle), Saved: saved}, nil
}

// toSummarize are the messages a pass summarizes: those since the last
// summary (prev, when hasPrev) between the thread's head and the tail kept
// verbatim, or, for a long backlog, its oldest slice; skipped says why
// there are none.
func (c *Compactor) toSummarize(ctx context.Context, scope yakor.Scope, prev Message, hasPrev bool) (middle []Message, skipped string, err error) {
	after := int64(0)
	if hasPrev {
		after = prev.SummaryThrough
	}
	var total int
	if err := c.store.db.QueryRow(ctx, `SELECT coalesce(sum(chars), 0) FROM messages
WHERE tenant_id = $1 AND user_id = $2 AND thread_id = $3 AND id > $4 AND kind <> 'summary' AND superseded_at IS NULL`,
		scope.TenantID, scope.UserID, scope.ThreadParam(), after).Scan(&total); err != nil {
		return nil, "", postgres.Wrap("compact", err)
	}
	if total <= c.cfg.WindowChars {
		return nil, "the window holds everything since the last summary", nil
	}
	msgs, err := c.store.Messages(ctx, scope, MessageFilter{AfterID: after, Limit: passMessages})
	if err != nil {
		return nil, "", err
	}
	msgs = dropSummaries(msgs)
	var head []Message
	if len(msgs) < passMessages {
		head, middle, _ = Split(msgs, c.cfg.TailChars)
	} else {
		// A long backlog (an imported thread) is summarized a slice at a
		// time, oldest first; the tail is far away.
		head, _, _ = Split(msgs, 0)
		middle = msgs[len(head):]
		n := 0
		for i, m := range middle {
			if n += m.Chars; n > c.cfg.WindowChars*3 && i > 0 {
				middle = middle[:i]
				break
			}
		}
	}
	if hasPrev {
		middle = append(head, middle...) // the thread's head was kept by the first pass
	}
	if len(middle) == 0 {
		return nil, "nothing between the head and the tail", nil
	}
	return middle, "", nil
}

// record notes a pass's summary and the characters it saved, for the
// next passes' "worth it" check.
func (c *Compactor) record(ctx context.Context, scope yakor.Scope, summaryID, through int64, saved int) error {
	if _, err := c.store.db.Exec(ctx, `INSERT INTO compactions (tenant_id, thread_id, summary_message_id, through_id, saved_chars)
VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`, scope.TenantID, scope.ThreadParam(), summaryID, through, saved); err != nil {
		return postgres.Wrap("record compaction", err)
	}
	return nil
}

// summarize writes the summary with the helper model, or offline when
// there is none or its answer is unusable.
func (c *Compactor) summarize(ctx context.Context, prev Summary, msgs []Message) Summary {
	if c.helper != nil {
		res, err := c.helper.Complete(ctx, SummaryRequest(prev, msgs, c.cfg.SummaryChars))
		if err == nil {
			if s, perr := ParseSummaryAnswer(res.Text); perr == nil {
				return s
			} else {
				err = perr
			}
		}
		c.log.WarnContext(ctx, "helper summary failed; summarizing offline", "err", err)
	}
	return OfflineSummary(prev, msgs, c.cfg.SummaryChars)
}

// recentSavings are the savings of the thread's last two passes, oldest
// first.
func (c *Compactor) recentSavings(ctx context.Context, scope yakor.Scope) ([]int, error) {
	rows, err := c.store.db.Query(ctx, `SELECT saved_chars FROM compactions WHERE tenant_id = $1 AND thread_id = $2 AND created_at > $3
ORDER BY summary_message_id DESC LIMIT 2`, scope.TenantID, scope.ThreadParam(), time.Now().Add(-24*time.Hour))
	if err != nil {
		return nil, postgres.Wrap("recent compactions", err)
	}
	saved, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		return nil, postgres.Wrap("recent compactions", err)
	}
	for i, j := 0, len(saved)-1; i < j; i, j = i+1, j-1 {
		saved[i], saved[j] = saved[j], saved[i]
	}
	return saved, nil
}

// summaryRange reads the first message id of a rendered summary's header,
// "[SUMMARY of messages N–M]".
var summaryRange = regexp.MustCompile(`^\[[^\]]*?(\d+)\s*[–-]\s*(\d+)\]`)

func parseRange(text string) (int64, bool) {
	m := summaryRange.FindStringSubmatch(text)
	if m == nil {
		return 0, false
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	return n, err == nil
}

func dropSummaries(msgs []Message) []Message {
	out := msgs[:0:0]
	for _, m := range msgs {
		if m.Kind != KindSummary {
			out = append(out, m)
		}
	}
	return out
}

func joinContent(msgs []Message) string {
	var b []byte
	for _, m := range msgs {
		b = append(b, m.Content...)
		b = append(b, '\n')
	}
	return string(b)
}
