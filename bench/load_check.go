package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"yakor/account"
)

// loadCheck is what the bench found in the threads after the run, through
// the API and in the database. Each count is the larger of the two views'.
type loadCheck struct {
	Threads  int `json:"threads"`
	Messages int `json:"messages"` // the threads' messages in the database
	// Lost counts messages sent (or replies acknowledged) that are not in
	// their thread, and user messages left without a reply.
	Lost int `json:"lost"`
	// Duplicated counts messages stored twice and extra replies.
	Duplicated int `json:"duplicated"`
	// OutOfOrder counts messages out of the order sent (a user message,
	// its reply, the next user message…).
	OutOfOrder int `json:"out_of_order"`
	// RunningTurns counts turns left 'running'; FailedTurns the failures
	// recorded (each followed by the retry that answered).
	RunningTurns int `json:"running_turns"`
	FailedTurns  int `json:"failed_turns"`
	// ProblemCount counts every problem found; Problems are the first 20.
	ProblemCount int      `json:"problem_count"`
	Problems     []string `json:"problems,omitempty"`
}

func (c *loadCheck) problem(format string, args ...any) {
	c.ProblemCount++
	if len(c.Problems) < 20 {
		c.Problems = append(c.Problems, fmt.Sprintf(format, args...))
	}
}

// loadTurn is a turn's row as the check reads it.
type loadTurn struct {
	id             string
	userMessageID  int64
	replyMessageID int64
	status         string
}

// checkLoad checks every conversation's thread through the API and in the
// database: each message sent is there once, in the order sent, with
// exactly one reply after it, as acknowledged; every turn ended, and each
// message has one turn that answered it with that reply.
func checkLoad(ctx context.Context, client *loadClient, srv *loadServer, convs []*loadConv) loadCheck {
	var c loadCheck
	c.Threads = len(convs)
	conn, err := pgx.Connect(ctx, srv.dbURL)
	if err != nil {
		c.problem("connect to the database to check it: %v", err)
		return c
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var api, db counts
	for _, conv := range convs {
		msgs, err := client.messages(ctx, conv.thread)
		if err != nil {
			c.problem("thread %d: list messages through the API: %v", conv.index, err)
			continue
		}
		api.add(checkThread(&c, "API", conv, msgs))
		stored, turns, err := readThread(ctx, conn, conv.thread)
		if err != nil {
			c.problem("thread %d: read the database: %v", conv.index, err)
			continue
		}
		c.Messages += len(stored)
		db.add(checkThread(&c, "database", conv, stored))
		checkTurns(&c, conv, stored, turns)
		if len(msgs) != len(stored) {
			c.problem("thread %d: the API lists %d messages, the database holds %d", conv.index, len(msgs), len(stored))
		} else {
			for i := range msgs {
				if msgs[i] != stored[i] {
					c.problem("thread %d: message %d differs between the API (%+v) and the database (%+v)", conv.index, i, msgs[i], stored[i])
					break
				}
			}
		}
	}
	c.Lost, c.Duplicated, c.OutOfOrder = max(api.lost, db.lost), max(api.duplicated, db.duplicated), max(api.outOfOrder, db.outOfOrder)
	return c
}

type counts struct{ lost, duplicated, outOfOrder int }

func (a *counts) add(b counts) {
	a.lost += b.lost
	a.duplicated += b.duplicated
	a.outOfOrder += b.outOfOrder
}

// checkThread checks one view (where) of a conversation's thread: its
// messages, oldest first. Summaries, which compaction adds beside the
// messages, are passed over.
func checkThread(c *loadCheck, where string, conv *loadConv, msgs []loadMessage) counts {
	var n counts
	index := make(map[string]int, len(conv.sent))
	for i, t := range conv.sent {
		index[t.clientID] = i
	}
	seen := make([]int, len(conv.sent))
	replies := make([][]int64, len(conv.sent))
	cur, next := -1, 0
	for _, m := range msgs {
		if m.Kind != "message" {
			continue
		}
		switch m.Role {
		case "user":
			i, ok := index[m.ClientID]
			if !ok {
				n.duplicated++
				c.problem("%s, thread %d: a user message that was not sent: %+v", where, conv.index, m)
				continue
			}
			seen[i]++
			if seen[i] > 1 {
				n.duplicated++
				c.problem("%s, thread %d: message %d (%s) stored %d times", where, conv.index, i, m.ClientID, seen[i])
				continue
			}
			if i != next {
				n.outOfOrder++
				c.problem("%s, thread %d: message %d comes where message %d should", where, conv.index, i, next)
			}
			if m.Content != conv.sent[i].content || (m.ID != conv.sent[i].userID && !conv.sent[i].unanswered) {
				c.problem("%s, thread %d: message %d is not what was sent and acknowledged: %+v", where, conv.index, i, m)
			}
			cur, next = i, max(next, i+1)
		case "assistant":
			if cur < 0 {
				n.outOfOrder++
				c.problem("%s, thread %d: a reply before any message: %+v", where, conv.index, m)
				continue
			}
			replies[cur] = append(replies[cur], m.ID)
		default:
			c.problem("%s, thread %d: a message of role %q: %+v", where, conv.index, m.Role, m)
		}
	}
	for i, t := range conv.sent {
		switch {
		case t.unanswered:
			// Given up on: stored or not, answered or not, but once.
			if len(replies[i]) > 1 {
				n.duplicated += len(replies[i]) - 1
				c.problem("%s, thread %d: message %d has %d replies %v", where, conv.index, i, len(replies[i]), replies[i])
			}
		case seen[i] == 0:
			n.lost++
			c.problem("%s, thread %d: message %d (%s) is missing", where, conv.index, i, t.clientID)
		case len(replies[i]) == 0:
			n.lost++
			c.problem("%s, thread %d: message %d has no reply", where, conv.index, i)
		case len(replies[i]) > 1:
			n.duplicated += len(replies[i]) - 1
			c.problem("%s, thread %d: message %d has %d replies %v", where, conv.index, i, len(replies[i]), replies[i])
		case replies[i][0] != t.replyID:
			n.lost++
			c.problem("%s, thread %d: message %d's reply is %d, the client was answered with %d", where, conv.index, i, replies[i][0], t.replyID)
		}
	}
	return n
}

// checkTurns checks the thread's turns: none left running, and each
// message answered by one turn, whose reply is the one stored after it.
func checkTurns(c *loadCheck, conv *loadConv, msgs []loadMessage, turns []loadTurn) {
	ok := map[int64][]loadTurn{}
	for _, t := range turns {
		switch t.status {
		case "running":
			c.RunningTurns++
			c.problem("database, thread %d: turn %s for message %d is still running", conv.index, t.id, t.userMessageID)
		case "failed":
			c.FailedTurns++
		case "ok":
			ok[t.userMessageID] = append(ok[t.userMessageID], t)
		}
	}
	byID := make(map[int64]loadMessage, len(msgs))
	for _, m := range msgs {
		byID[m.ID] = m
	}
	for i, s := range conv.sent {
		if s.unanswered {
			continue
		}
		ts := ok[s.userID]
		if len(ts) != 1 {
			c.problem("database, thread %d: message %d was answered by %d turns", conv.index, i, len(ts))
			continue
		}
		if r, found := byID[ts[0].replyMessageID]; !found || r.ID != s.replyID || r.TurnID != ts[0].id {
			c.problem("database, thread %d: message %d's turn %s names reply %d, the client was answered with %d", conv.index, i, ts[0].id, ts[0].replyMessageID, s.replyID)
		}
	}
}

// readThread reads a thread's messages, oldest first, and its turns, as
// the tables' owner (not held by row-level security).
func readThread(ctx context.Context, conn *pgx.Conn, thread string) ([]loadMessage, []loadTurn, error) {
	const qm = `SELECT id, role, kind, content, coalesce(client_id, ''), coalesce(turn_id::text, '') FROM messages
WHERE tenant_id = $1 AND thread_id = $2 ORDER BY id`
	rows, err := conn.Query(ctx, qm, account.LocalTenantID, thread)
	if err != nil {
		return nil, nil, err
	}
	msgs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (loadMessage, error) {
		var m loadMessage
		err := r.Scan(&m.ID, &m.Role, &m.Kind, &m.Content, &m.ClientID, &m.TurnID)
		return m, err
	})
	if err != nil {
		return nil, nil, err
	}
	const qt = `SELECT id::text, user_message_id, coalesce(reply_message_id, 0), status FROM turns
WHERE tenant_id = $1 AND thread_id = $2`
	rows, err = conn.Query(ctx, qt, account.LocalTenantID, thread)
	if err != nil {
		return nil, nil, err
	}
	turns, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (loadTurn, error) {
		var t loadTurn
		err := r.Scan(&t.id, &t.userMessageID, &t.replyMessageID, &t.status)
		return t, err
	})
	return msgs, turns, err
}

// jobCount is one kind of post-turn job the run enqueued: done
// (completed), waiting (available, scheduled, retryable or running) and
// failed (discarded or cancelled) at the end.
type jobCount struct {
	Kind    string `json:"kind"`
	Done    int    `json:"done"`
	Waiting int    `json:"waiting"`
	Failed  int    `json:"failed"`
}

// postTurnJobs counts the job queue's jobs enqueued since start, by kind.
func postTurnJobs(ctx context.Context, dbURL string, since time.Time) ([]jobCount, error) {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	const q = `SELECT kind,
    count(*) FILTER (WHERE state = 'completed'),
    count(*) FILTER (WHERE state IN ('available', 'scheduled', 'retryable', 'running', 'pending')),
    count(*) FILTER (WHERE state IN ('discarded', 'cancelled'))
FROM river_job WHERE created_at >= $1 GROUP BY kind ORDER BY kind`
	rows, err := conn.Query(ctx, q, since)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (jobCount, error) {
		var j jobCount
		err := r.Scan(&j.Kind, &j.Done, &j.Waiting, &j.Failed)
		return j, err
	})
}

// waitJobs waits, up to wait after last (the last turn's end), for every
// job enqueued since start to be done, and returns how long after last
// they were (-1: not within the wait) and the wait. A job queue that
// cannot be read counts as not done.
func waitJobs(ctx context.Context, dbURL string, start, last time.Time, wait time.Duration) (doneMs, waitMs float64) {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return -1, ms(wait)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for {
		var waiting int
		err := conn.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE created_at >= $1
AND state IN ('available', 'scheduled', 'retryable', 'running', 'pending')`, start).Scan(&waiting)
		now := time.Now()
		switch {
		case err == nil && waiting == 0:
			return max(0, ms(now.Sub(last))), ms(wait)
		case err != nil || now.Sub(last) > wait:
			return -1, ms(wait)
		}
		select {
		case <-ctx.Done():
			return -1, ms(wait)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
