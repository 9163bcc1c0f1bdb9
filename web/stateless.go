package web

import (
	"context"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"yakor"
	"yakor/history"
	"yakor/turn"
	"yakor/web/oaicompat"
)

// chainClientPrefix starts the client id a resent conversation's turn is
// known by: its message's link in the conversation.
const chainClientPrefix = "chain:"

// resendWait is how often a resent message whose first answer is being
// written asks again.
const resendWait = 250 * time.Millisecond

// linkTurn links the request's turn, in scope's thread, into its client's
// conversation (history.Chain). Without Idempotency-Key, a request is known
// by its turn's link: sent again byte for byte it is a retry (answered
// once) while its first answer is being written or after it failed; a
// request that carries its conversation and was answered is a regenerate
// (answered anew, the old answer superseded). A request with only what is
// new follows the thread's newest reply (history.LinkBefore).
func (s *Server) linkTurn(ctx context.Context, scope yakor.Scope, in *oaicompat.Inputs, now time.Time) error {
	in.Turn.Link = turn.Link{}
	prev := history.Genesis
	if n := len(in.History); n > 0 {
		prev = history.Chains(in.History)[n-1]
		if len(in.Turn.ToolResults) == 0 {
			in.Turn.Link.RegenerateBefore = now // results sent again are a retry
		}
	} else {
		var err error
		if prev, err = s.threads.LinkBefore(ctx, scope); err != nil {
			return err
		}
	}
	in.Turn.Link.Prev = prev
	if in.Turn.ClientID == "" && len(in.Turn.ToolResults) == 0 {
		in.Turn.ClientID = chainClientPrefix + hex.EncodeToString(turnLink(*in, prev))
	}
	return nil
}

// turnLink is the link of the turn's first message after prev.
func turnLink(in oaicompat.Inputs, prev []byte) []byte {
	if len(in.Turn.ToolResults) > 0 {
		return history.ChainOf(prev, turn.ToolResultMessage(in.Turn.ToolResults[0], ""))
	}
	return history.ChainOf(prev, history.NewMessage{Role: history.RoleUser, Content: in.Turn.Content})
}

// follow brings a thread that exists up to the request's conversation
// (history.Follow): an edited or regenerated earlier message starts a
// branch, and the earlier messages it lacks are stored, once.
func (s *Server) follow(ctx context.Context, scope yakor.Scope, in oaicompat.Inputs) error {
	if len(in.History) == 0 {
		return nil
	}
	prev := history.Chains(in.History)[len(in.History)-1]
	_, _, err := s.threads.Follow(ctx, scope, in.History, turnLink(in, prev), s.maxImport)
	if errors.Is(err, history.ErrLongHistory) {
		return oaicompat.Invalid("messages", "%s", yakor.ErrorMessage(err))
	}
	return err
}

// sendTurn runs the turn; a resent conversation's turn whose first answer
// is being written waits for it and is answered with it.
func (s *Server) sendTurn(c *gin.Context, scope yakor.Scope, in turn.Input, fn func(turn.Event) error) (turn.Outcome, error) {
	ctx := c.Request.Context()
	for {
		out, err := s.turns.Send(ctx, scope, in, fn)
		if yakor.ErrorCode(err) != yakor.ECONFLICT || !strings.HasPrefix(in.ClientID, chainClientPrefix) {
			return out, err
		}
		select {
		case <-ctx.Done():
			return out, err
		case <-time.After(resendWait):
		}
	}
}
