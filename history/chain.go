package history

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"

	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/postgres"
)

// chainLen is the bytes of a chain kept: 128 bits, unique enough among
// one user's messages.
const chainLen = 16

// followReach bounds the messages after a matched one that Follow walks to
// find the client's earlier branch.
const followReach = 2000

// Genesis is the chain before a conversation's first message.
var Genesis = make([]byte, chainLen)

// Chain is the link of a message after prev in its client's conversation:
// a hash of prev, the message's role, its text as the client sends it, its
// tool calls and the call it answers. A conversation resent the same way
// gives the same chains.
func Chain(prev []byte, role, text string, calls []ToolCall, callID string) []byte {
	h := sha256.New()
	h.Write(prev)
	for _, s := range []string{role, text, callID} {
		fmt.Fprintf(h, "%d:%s", len(s), s)
	}
	for _, c := range calls {
		fmt.Fprintf(h, "%d:%s%d:%s%d:%s", len(c.ID), c.ID, len(c.Name), c.Name, len(c.Arguments), c.Arguments)
	}
	return h.Sum(nil)[:chainLen]
}

// ChainOf is nm's link after prev: its text as its client sent it (a
// tool result's and a reply's own text, kept in Meta).
func ChainOf(prev []byte, nm NewMessage) []byte {
	m := Message{Role: nm.Role, Content: nm.Content, Meta: nm.Meta}
	return m.chainAfter(prev)
}

// chainAfter is m's link after prev.
func (m Message) chainAfter(prev []byte) []byte {
	if m.Meta != nil && (len(m.Meta.ToolCalls) > 0 || m.Meta.ToolCallID != "") {
		return Chain(prev, m.Role, m.Meta.Text, m.Meta.ToolCalls, m.Meta.ToolCallID)
	}
	return Chain(prev, m.Role, m.Content, nil, "")
}

// Chains links msgs, a client's conversation from its start.
func Chains(msgs []NewMessage) [][]byte {
	out := make([][]byte, len(msgs))
	prev := Genesis
	for i, m := range msgs {
		out[i] = ChainOf(prev, m)
		prev = out[i]
	}
	return out
}

// FindChain finds the deepest of chains (a client's conversation, linked)
// among the user's messages on their branch: in scope's thread, or when
// scope names none in any of the user's threads. It returns the thread and
// how many of chains it holds (0 and "" when none).
func (s *Store) FindChain(ctx context.Context, scope yakor.Scope, chains [][]byte) (thread string, n int, err error) {
	if len(chains) == 0 {
		return "", 0, nil
	}
	const q = `SELECT thread_id::text, chain FROM messages
WHERE tenant_id = $1 AND user_id = $2 AND chain = ANY($3) AND superseded_at IS NULL AND ($4 = '' OR thread_id::text = $4)`
	rows, err := s.db.Query(ctx, q, scope.TenantID, scope.UserID, chains, scope.ThreadID)
	if err != nil {
		return "", 0, postgres.Wrap("find conversation", err)
	}
	type hit struct {
		Thread string
		Chain  []byte
	}
	hits, err := pgx.CollectRows(rows, pgx.RowToStructByPos[hit])
	if err != nil {
		return "", 0, postgres.Wrap("find conversation", err)
	}
	for _, h := range hits {
		for i := len(chains) - 1; i >= n; i-- {
			if bytes.Equal(h.Chain, chains[i]) {
				thread, n = h.Thread, i+1
				break
			}
		}
	}
	return thread, n, nil
}

// Follow brings scope's thread up to a client's conversation: history, the
// messages before the turn, linked (Chains), and next, the link of the
// turn's own message. The deepest message of history the thread holds is
// where the client's conversation and the thread's meet: what the thread
// holds after it on the client's branch, when the client's next message is
// not its next one (an edit, a regenerate of an earlier message), is
// superseded (kept, out of the window and search), and the messages of
// history after the meeting point are stored. A thread that holds none of
// history keeps what it has and takes none of it (its messages came from
// clients that link nothing). It returns how many were superseded and
// stored, all in one transaction; more than max to store (max > 0) is
// ErrLongHistory, and nothing changes.
func (s *Store) Follow(ctx context.Context, scope yakor.Scope, history []NewMessage, next []byte, max int) (superseded, stored int64, err error) {
	err = pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		superseded, stored, err = s.WithTx(tx).follow(ctx, scope, history, next, max)
		return err
	})
	if err != nil && yakor.ErrorCode(err) == yakor.EINTERNAL {
		err = postgres.Wrap("follow conversation", err)
	}
	return superseded, stored, err
}

func (s *Store) follow(ctx context.Context, scope yakor.Scope, history []NewMessage, next []byte, max int) (superseded, stored int64, err error) {
	chains := Chains(history)
	_, n, err := s.FindChain(ctx, scope, chains)
	if err != nil || n == 0 {
		return 0, 0, err
	}
	if max > 0 && len(history)-n > max {
		return 0, 0, fmt.Errorf("%w: %w", yakor.Errorf(yakor.EINVALID, "the request carries %d earlier messages this conversation does not hold yet; at most %d are imported (--max-import-messages)", len(history)-n, max), ErrLongHistory)
	}
	meet := chains[n-1]
	want := next
	if n < len(chains) {
		want = chains[n]
	}
	if superseded, err = s.supersedeBranch(ctx, scope, meet, want); err != nil {
		return 0, 0, err
	}
	rest := history[n:]
	for i := range rest {
		rest[i].Chain = chains[n+i]
	}
	if len(rest) > 0 {
		if stored, err = s.Import(ctx, scope, rest); err != nil {
			return superseded, 0, err
		}
	}
	return superseded, stored, nil
}

// branchSQL reads the first $5 messages after the thread's newest one
// linked $4: $1 tenant, $2 user, $3 thread. The messages_by_chain index
// finds the linked one.
var branchSQL = `SELECT ` + messageColumns + ` FROM messages
WHERE tenant_id = $1 AND user_id = $2 AND ` + postgres.OneThread("$3") + ` AND superseded_at IS NULL AND kind <> 'summary'
  AND id > (SELECT max(id) FROM messages WHERE tenant_id = $1 AND user_id = $2 AND thread_id = $3 AND chain = $4)
` + postgres.OldestFirst + ` LIMIT $5`

// supersedeBranch supersedes the thread's messages on the client's branch
// after the message linked meet, unless the first of them is the client's
// next one (want): then the client goes on where the thread does.
func (s *Store) supersedeBranch(ctx context.Context, scope yakor.Scope, meet, want []byte) (int64, error) {
	rows, err := s.db.Query(ctx, branchSQL, scope.TenantID, scope.UserID, scope.ThreadParam(), meet, followReach)
	if err != nil {
		return 0, postgres.Wrap("follow conversation", err)
	}
	later, err := pgx.CollectRows(rows, scanMessage)
	if err != nil {
		return 0, postgres.Wrap("follow conversation", err)
	}
	var branch []int64
	prev := meet
	for _, m := range later {
		if m.Chain == nil || !bytes.Equal(m.Chain, m.chainAfter(prev)) {
			continue // another client's message, or a reply of a turn still running
		}
		if len(branch) == 0 && bytes.Equal(m.Chain, want) {
			return 0, nil
		}
		branch, prev = append(branch, m.ID), m.Chain
	}
	if len(branch) == 0 {
		return 0, nil
	}
	return s.Supersede(ctx, scope, branch)
}

// Supersede puts messages of scope's thread on an earlier branch: kept,
// out of the window and search. The turns they answered are superseded
// too, so that their messages may be answered again.
func (s *Store) Supersede(ctx context.Context, scope yakor.Scope, ids []int64) (int64, error) {
	const q = `WITH m AS (
    UPDATE messages SET superseded_at = now()
    WHERE tenant_id = $1 AND user_id = $2 AND thread_id = $3 AND id = ANY($4) AND superseded_at IS NULL
    RETURNING id
), t AS (
    UPDATE turns SET status = 'superseded'
    WHERE tenant_id = $1 AND thread_id = $3 AND status = 'ok' AND reply_message_id IN (SELECT id FROM m)
)
SELECT count(*) FROM m`
	var n int64
	if err := s.db.QueryRow(ctx, q, scope.TenantID, scope.UserID, scope.ThreadParam(), ids).Scan(&n); err != nil {
		return 0, postgres.Wrap("supersede messages", err)
	}
	return n, nil
}

// linkBeforeSQL reads the chain link of the thread's newest message that
// is not a user's message after the last reply: $1 tenant, $2 user, $3
// thread.
var linkBeforeSQL = `SELECT chain FROM messages
WHERE tenant_id = $1 AND user_id = $2 AND ` + postgres.OneThread("$3") + ` AND superseded_at IS NULL AND kind <> 'summary'
  AND NOT (role = 'user' AND id > coalesce((SELECT id FROM messages
      WHERE tenant_id = $1 AND user_id = $2 AND ` + postgres.OneThread("$3") + ` AND superseded_at IS NULL AND role = 'assistant'
      ` + postgres.NewestFirst + ` LIMIT 1), 0))
` + postgres.NewestFirst + ` LIMIT 1`

// LinkBefore is the link a client's new message follows when the client
// sends only what is new: the newest message of scope's thread on its
// branch, passing over the user's messages after its last reply (a message
// whose answer failed or is being written: sent again, it is the same
// message). Genesis when there is none linked.
func (s *Store) LinkBefore(ctx context.Context, scope yakor.Scope) ([]byte, error) {
	var c []byte
	err := s.db.QueryRow(ctx, linkBeforeSQL, scope.TenantID, scope.UserID, scope.ThreadParam()).Scan(&c)
	if found, err := postgres.Found("find the last reply", err); !found || err != nil || c == nil {
		return Genesis, err
	}
	return c, nil
}
