package turn

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/history"
	"yakor/postgres"
)

// open stores the user's message and records its running turn in one
// transaction, so that a send the database refuses (its disk full or
// read-only, or gone) leaves neither a message without a turn nor a turn
// without its message. A message sent before (the same client id) is not
// stored again: its stored answer is returned (done), or ECONFLICT while
// another turn answers it, or it is answered now when its turn failed.
func (e *Engine) open(ctx context.Context, scope yakor.Scope, in Input) (userMsg history.Message, turnID string, replayed Outcome, done bool, err error) {
	var recorded *unrecordedTurn // a kept failure this transaction records
	err = pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		var created bool
		var err error
		userMsg, created, err = e.history.WithTx(tx).Append(ctx, scope, history.NewMessage{Role: history.RoleUser, Content: in.Content, ClientID: in.ClientID})
		if err != nil {
			return fmt.Errorf("send: %w", err)
		}
		if !created {
			if replayed, done, recorded, err = e.replay(ctx, tx, scope, userMsg); done || err != nil {
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
			e.keep(scope, Trace{ID: turnID, ThreadID: scope.ThreadID, UserMessageID: userMsg.ID, Status: StatusFailed, Error: yakor.ErrorMessage(err),
				Provider: e.model.Provider(), Model: e.model.Model(), Timings: map[string]float64{}})
		}
		return history.Message{}, "", Outcome{}, false, err
	}
	if recorded != nil {
		e.unrecorded.remove(*recorded)
	}
	return userMsg, turnID, replayed, done, nil
}

// replay answers a resent message: with the stored reply when it was
// answered, ECONFLICT while another turn is answering it, or done=false
// when it should be answered now (its earlier turn failed or died).
func (e *Engine) replay(ctx context.Context, tx pgx.Tx, scope yakor.Scope, userMsg history.Message) (out Outcome, done bool, recorded *unrecordedTurn, err error) {
	prev, ok, err := answered(ctx, tx, scope, userMsg.ID)
	if err != nil || !ok {
		return Outcome{}, false, nil, err
	}
	if prev.Status == StatusOK {
		reply, err := e.history.WithTx(tx).FindMessage(ctx, scope, prev.ReplyMessageID)
		if err != nil {
			return Outcome{}, true, nil, fmt.Errorf("replay: %w", err)
		}
		return Outcome{UserMessage: userMsg, Reply: reply, TurnID: prev.ID, Replayed: true}, true, nil, nil
	}
	if k, ok := e.unrecorded.get(prev.ID); ok {
		// This engine ran the turn and knows it failed: its failure is
		// recorded now and the message answered again; the engine
		// forgets it once the transaction commits.
		if _, err := finish(ctx, tx, k.scope, k.tr); err != nil {
			return Outcome{}, false, nil, err
		}
		return Outcome{}, false, &k, nil
	}
	if gone, err := abandon(ctx, tx, scope, prev.ID, e.cfg.StaleTurnAfter); err != nil || gone {
		return Outcome{}, false, nil, err
	}
	return Outcome{}, true, nil, yakor.Errorf(yakor.ECONFLICT, "a reply to this message is already being written; try again in a moment")
}

// fail records the turn as failed with the reason and returns cause. When
// the database does not take the record (its disk full or read-only, or
// gone), the engine keeps it and records it as soon as the database takes
// it (keep), so that no failed turn stays running.
func (e *Engine) fail(scope yakor.Scope, tr Trace, start time.Time, cause error) error {
	tr.Status = StatusFailed
	tr.Error = yakor.ErrorMessage(cause)
	if yakor.ErrorCode(cause) == yakor.EINTERNAL {
		tr.Error = cause.Error()
	}
	tr.Timings["total"] = ms(time.Since(start))
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
