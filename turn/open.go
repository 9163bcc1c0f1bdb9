package turn

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/history"
	"yakor/llm"
	"yakor/postgres"
)

// open stores the user's message and records its running turn in one
// transaction, so that a send the database refuses (its disk full or
// read-only, or gone) leaves neither a message without a turn nor a turn
// without its message. A message sent before (the same client id) is not
// stored again: its stored answer is returned (Replayed), or ECONFLICT while
// another turn answers it, or it is answered now when its turn failed.
func (t *turnRun) open(ctx context.Context) (replayed Outcome, err error) {
	e, scope := t.e, t.scope
	var userMsg history.Message
	var turnID string
	var recorded *unrecordedTurn // a kept failure this transaction records
	err = pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		var created bool
		var err error
		userMsg, created, err = t.store(ctx, tx)
		if err != nil {
			return fmt.Errorf("send: %w", err)
		}
		if !created {
			if replayed, recorded, err = e.replay(ctx, tx, scope, userMsg, t.in.Link.RegenerateBefore); err != nil || replayed.Replayed {
				return err
			}
		}
		turnID, err = begin(ctx, tx, scope, userMsg.ID, e.model.Provider(), e.model.Model())
		return err
	})
	if err != nil && yakor.ErrorCode(err) == yakor.EINTERNAL {
		err = postgres.Wrap("send: store the message", err) // the transaction's own begin or commit
	}
	if err != nil {
		if turnID != "" && yakor.ErrorCode(err) == yakor.EUNAVAILABLE {
			// The commit may have reached the database before the
			// connection broke: its turn is failed, should it exist.
			tr := e.trace(scope, turnID, userMsg.ID)
			tr.Status, tr.Error = StatusFailed, yakor.ErrorMessage(err)
			e.keep(scope, tr)
		}
		return Outcome{}, err
	}
	if recorded != nil {
		e.unrecorded.remove(*recorded)
	}
	t.userMsg, t.tr = userMsg, e.trace(scope, turnID, userMsg.ID)
	t.tr.Timings["open"] = ms(time.Since(t.start))
	return replayed, nil
}

// store stores the turn's input in tx: the user's message, or each tool
// result (once per call). It returns the message the turn answers (the
// last), and whether it was stored now.
func (t *turnRun) store(ctx context.Context, tx pgx.Tx) (history.Message, bool, error) {
	h, in := t.e.history.WithTx(tx), t.in
	prev := in.Link.Prev // nil: the turn's messages are not linked
	if len(in.ToolResults) == 0 {
		nm := history.NewMessage{Role: history.RoleUser, Content: in.Content, ClientID: in.ClientID, Author: in.Author}
		nm.Chain = link(prev, nm)
		return h.AppendTo(ctx, t.scope, t.thread, nm)
	}
	t.results = t.results[:0]
	var (
		last    history.Message
		created bool
	)
	for _, r := range in.ToolResults {
		if r.Name == "" {
			r.Name = callName(t.calling, r.CallID)
		}
		nm := ToolResultMessage(r, toolClientID(t.calling.ID, r.CallID))
		nm.Chain = link(prev, nm)
		prev = nm.Chain
		m, c, err := h.AppendTo(ctx, t.scope, t.thread, nm)
		if err != nil {
			return history.Message{}, false, err
		}
		t.results = append(t.results, m)
		last, created = m, created || c
	}
	return last, created, nil
}

// link is nm's link after prev, nil when prev is (the turn is not linked).
func link(prev []byte, nm history.NewMessage) []byte {
	if prev == nil {
		return nil
	}
	return history.ChainOf(prev, nm)
}

// trace is the record of the running turn turnID, answering userMsg.
func (e *Engine) trace(scope yakor.Scope, turnID string, userMsg int64) Trace {
	return Trace{ID: turnID, ThreadID: scope.ThreadID, UserMessageID: userMsg, Provider: e.model.Provider(), Model: e.model.Model(), Timings: map[string]float64{}}
}

// replay answers a resent message: anew when its answer was stored before
// regenerate (its reply is superseded), with the stored reply when it was
// answered (Replayed), ECONFLICT while another turn is answering it, or a
// zero Outcome when it should be answered now (its earlier turn failed or
// died); recorded is the kept failure it recorded, if any.
func (e *Engine) replay(ctx context.Context, tx pgx.Tx, scope yakor.Scope, userMsg history.Message, regenerate time.Time) (out Outcome, recorded *unrecordedTurn, err error) {
	prev, ok, err := answered(ctx, tx, scope, userMsg.ID)
	if err != nil || !ok {
		return Outcome{}, nil, err
	}
	if prev.Status == StatusOK && prev.FinishedAt != nil && prev.FinishedAt.Before(regenerate) {
		// Sent again after its answer: the client asks for another one.
		_, err := e.history.WithTx(tx).Supersede(ctx, scope, []int64{prev.ReplyMessageID})
		return Outcome{}, nil, err
	}
	if prev.Status == StatusOK {
		reply, err := e.history.WithTx(tx).FindMessage(ctx, scope, prev.ReplyMessageID)
		if err != nil {
			return Outcome{}, nil, fmt.Errorf("replay: %w", err)
		}
		return ReplayOf(userMsg, reply, prev.ID), nil, nil
	}
	if k, ok := e.unrecorded.get(prev.ID); ok {
		// This engine ran the turn and knows it failed: its failure is
		// recorded now and the message answered again; the engine
		// forgets it once the transaction commits.
		if _, err := finish(ctx, tx, k.scope, k.tr); err != nil {
			return Outcome{}, nil, err
		}
		return Outcome{}, &k, nil
	}
	if gone, err := abandon(ctx, tx, scope, prev.ID, e.cfg.StaleTurnAfter); err != nil || gone {
		return Outcome{}, nil, err
	}
	return Outcome{}, nil, yakor.Errorf(yakor.ECONFLICT, "a reply to this message is already being written; try again in a moment")
}

// storeReply writes the reply and the turn's end together (with the
// post-turn jobs), whatever becomes of the client's request now that the
// answer exists.
func (t *turnRun) storeReply(ctx context.Context, text string, calls []llm.ToolCall) (history.Message, error) {
	storeStart := time.Now()
	wctx := context.WithoutCancel(ctx)
	var reply history.Message
	// A transaction refused because its shard moved meanwhile (Citus)
	// wrote nothing: it is run again rather than lose the model's answer.
	err := t.storeReplyTx(wctx, text, calls, storeStart, &reply)
	for retry := 0; retry < 2 && postgres.Moved(err); retry++ {
		err = t.storeReplyTx(wctx, text, calls, storeStart, &reply)
	}
	if err != nil {
		if yakor.ErrorCode(err) == yakor.EINTERNAL {
			err = postgres.Wrap("store reply", err) // a database lost mid-transaction is 503
		} else {
			err = fmt.Errorf("store reply: %w", err)
		}
		return history.Message{}, err
	}
	return reply, nil
}

// storeReplyTx is one attempt of storeReply's transaction.
func (t *turnRun) storeReplyTx(wctx context.Context, text string, calls []llm.ToolCall, storeStart time.Time, reply *history.Message) error {
	e, scope := t.e, t.scope
	return pgx.BeginFunc(wctx, e.pool, func(tx pgx.Tx) error {
		var err error
		nm := ReplyMessage(t.in.Prefill+text, calls, t.tr.ID)
		nm.Chain = link(t.userMsg.Chain, nm)
		*reply, _, err = e.history.WithTx(tx).AppendTo(wctx, scope, t.thread, nm)
		if err != nil {
			return err
		}
		if e.jobs != nil {
			a := AfterTurn{UserMessageID: t.userMsg.ID, ReplyID: reply.ID, Anchor: e.anchors != nil && e.cfg.AnchorMode != AnchorOff}
			if err := e.jobs.EnqueueAfterTurn(wctx, tx, scope, a); err != nil {
				return err
			}
		}
		return t.end(wctx, tx, reply.ID, storeStart)
	})
}

// end records in tx that the turn answered with reply. A resend that took
// the turn for abandoned meanwhile answers it anew: then it is ECONFLICT.
func (t *turnRun) end(ctx context.Context, tx pgx.Tx, reply int64, storeStart time.Time) error {
	tr := &t.tr
	tr.Status, tr.ReplyMessageID = StatusOK, reply
	tr.Timings["store"] = ms(time.Since(storeStart))
	tr.Timings["total"] = ms(time.Since(t.start))
	tr.Timings["memory"] = tr.Timings["total"] - tr.Timings["model"]
	ended, err := finish(ctx, tx, t.scope, *tr)
	if err == nil && !ended {
		err = yakor.Errorf(yakor.ECONFLICT, "this message was answered again while this reply was written; this reply is not stored")
	}
	return err
}

// markUsed records that the prompt's facts were used. Best effort: a
// fact's use only orders eviction.
func (t *turnRun) markUsed(ctx context.Context) {
	if t.e.factLayer == nil {
		return
	}
	if err := t.e.factLayer.MarkUsed(context.WithoutCancel(ctx), t.scope, t.factIDs); err != nil {
		t.e.log.WarnContext(ctx, "mark facts used", "turn", t.tr.ID, "err", err)
	}
}

// fail records the turn as failed with the reason and returns cause. When
// the database does not take the record (its disk full or read-only, or
// gone), the engine keeps it and records it as soon as the database takes
// it (keep), so that no failed turn stays running.
func (t *turnRun) fail(cause error) error {
	e, scope, tr := t.e, t.scope, t.tr
	tr.Status = StatusFailed
	tr.Error = yakor.ErrorMessage(cause)
	if yakor.ErrorCode(cause) == yakor.EINTERNAL {
		tr.Error = cause.Error()
	}
	tr.Timings["total"] = ms(time.Since(t.start))
	// Recorded whatever became of the request, in the turn's tenant.
	ctx, cancel := context.WithTimeout(scope.Context(context.Background()), 10*time.Second)
	defer cancel()
	if _, err := finish(ctx, e.pool, scope, tr); err != nil {
		e.log.ErrorContext(ctx, "record failed turn; it is recorded once the database takes it", "turn", tr.ID, "err", err)
		e.keep(scope, tr)
	}
	e.metrics.observe(tr)
	e.log.WarnContext(ctx, "turn failed", "turn", tr.ID, "thread", tr.ThreadID, "err", cause)
	return cause
}
