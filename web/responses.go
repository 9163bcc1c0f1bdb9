package web

import (
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"yakor"
	"yakor/history"
	"yakor/turn"
	"yakor/web/oaicompat"
)

// registerResponsesRoutes adds the Responses API to the /v1 group.
func registerResponsesRoutes(v1 *gin.RouterGroup, s *Server) {
	v1.POST("/responses", s.turnSlot(), s.handleResponseCreate)
	v1.GET("/responses/:id", s.handleResponseView)
}

// handleResponseCreate runs a turn for a Responses API request: the input
// items after the conversation's last reply are the turn, in the thread of
// previous_response_id, or of the conversation, or the caller's default
// conversation (as /v1/chat/completions picks it). The answer is a
// response object, or with stream: true its events.
func (s *Server) handleResponseCreate(c *gin.Context) {
	body, err := s.body(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	rr, err := oaicompat.ParseResponsesRequest(body)
	if err != nil {
		s.fail(c, err)
		return
	}
	in, err := s.chatInputs(c, rr.Chat)
	if err != nil {
		s.fail(c, err)
		return
	}
	if rr.Conversation != "" {
		in.Conversation = rr.Conversation
	}
	now := time.Now()
	scope, err := s.openTurn(c, &in, rr.PreviousResponseID, now)
	if err != nil {
		s.fail(c, err)
		return
	}
	if in.Stream {
		s.streamResponse(c, scope, in, rr, now.Unix())
		return
	}
	out, err := s.sendTurn(c, scope, in.Turn, func(turn.Event) error { return nil })
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, oaicompat.NewResponse(out.TurnID, in.Model, now.Unix(), rr).Finish(out))
}

// chatInputs checks a parsed chat request's model and splits it into
// Yakor's inputs, with the turn's client id from Idempotency-Key.
func (s *Server) chatInputs(c *gin.Context, req oaicompat.ChatRequest) (oaicompat.Inputs, error) {
	if !slices.Contains(s.models(), req.Model) {
		return oaicompat.Inputs{}, oaicompat.ModelNotFound(req.Model, s.models())
	}
	in, err := req.Inputs()
	if err != nil {
		return oaicompat.Inputs{}, err
	}
	in.Turn.ClientID = strings.TrimSpace(c.GetHeader(headerIdempotency))
	if n := utf8.RuneCountInString(in.Turn.ClientID); n > maxIdempotencyKey {
		return oaicompat.Inputs{}, yakor.Errorf(yakor.EINVALID, "the %s header is %d characters long; the limit is %d", headerIdempotency, n, maxIdempotencyKey)
	}
	return in, nil
}

// streamResponse streams the turn as the Responses API's events:
// response.created and response.in_progress, the message item's text as
// response.output_text.delta events, each function call's item, then
// response.completed (response.incomplete when the model ran out of
// tokens). A failure after the stream started is response.failed.
func (s *Server) streamResponse(c *gin.Context, scope yakor.Scope, in oaicompat.Inputs, rr oaicompat.ResponsesRequest, now int64) {
	sse := &sseWriter{c: c}
	var events *oaicompat.ResponseStream
	send := func(evs ...oaicompat.Event) error {
		for _, ev := range evs {
			if err := sse.event(ev.Type, ev.Data); err != nil {
				return err
			}
		}
		return nil
	}
	begin := func(turnID string) error {
		if events != nil {
			return nil
		}
		events = oaicompat.NewResponseStream(oaicompat.NewResponse(turnID, in.Model, now, rr))
		return send(events.Created()...)
	}
	out, err := s.sendTurn(c, scope, in.Turn, func(ev turn.Event) error {
		if ev.Text == "" {
			return nil // a search: Yakor's own
		}
		if err := begin(ev.TurnID); err != nil {
			return err
		}
		return send(events.Delta(ev.Text)...)
	})
	if err != nil {
		if !sse.started {
			s.fail(c, err)
			return
		}
		if statusOf(err) >= 500 {
			s.log.WarnContext(c.Request.Context(), "streamed response failed", "thread", scope.ThreadID, "err", err)
		}
		e := oaicompat.NewError(statusOf(err), yakor.ErrorMessage(err), "", "").Error
		code := e.Type
		if e.Code != nil {
			code = *e.Code
		}
		_ = send(events.Failed(code, e.Message))
		return
	}
	if err := begin(out.TurnID); err != nil {
		return
	}
	_ = send(events.Completed(out)...)
}

// handleResponseView returns a stored response: the turn's reply as a
// response object (in_progress while it runs, failed with its error).
func (s *Server) handleResponseView(c *gin.Context) {
	id := c.Param("id")
	turnID, ok := strings.CutPrefix(id, oaicompat.ResponseIDPrefix)
	if !ok {
		s.fail(c, yakor.Errorf(yakor.ENOTFOUND, "response %q not found", id))
		return
	}
	ctx, scope := c.Request.Context(), scopeOf(c)
	tr, err := s.turns.FindTrace(ctx, scope, turnID)
	if err != nil {
		s.fail(c, yakor.Errorf(yakor.ENOTFOUND, "response %q not found", id))
		return
	}
	resp := oaicompat.NewResponse(tr.ID, modelAlias, tr.CreatedAt.Unix(), oaicompat.ResponsesRequest{Store: true})
	switch tr.Status {
	case turn.StatusFailed:
		resp.Fail("server_error", tr.Error)
	case turn.StatusOK:
		reply, err := s.threads.FindMessage(ctx, scope.WithThread(tr.ThreadID), tr.ReplyMessageID)
		if err != nil {
			s.fail(c, err)
			return
		}
		user, err := s.threads.FindMessage(ctx, scope.WithThread(tr.ThreadID), tr.UserMessageID)
		if err != nil {
			s.fail(c, err)
			return
		}
		resp.Finish(replyOutcome(user, reply, tr.ID))
	}
	c.JSON(http.StatusOK, resp)
}

// replyOutcome is a stored turn's outcome, as a replay gives it.
func replyOutcome(user, reply history.Message, turnID string) turn.Outcome {
	return turn.ReplayOf(user, reply, turnID)
}

// responseThread is the thread of the previous response prev, which must
// be the request's end user's; a thread X-Yakor-Thread names must be the
// same one.
func (s *Server) responseThread(c *gin.Context, prev, named string) (string, error) {
	turnID, _ := strings.CutPrefix(prev, oaicompat.ResponseIDPrefix)
	tr, err := s.turns.FindTrace(c.Request.Context(), scopeOf(c), turnID)
	if err != nil {
		return "", oaicompat.NotFound("previous_response_id", "previous response %q not found", prev)
	}
	if named != "" && named != tr.ThreadID {
		return "", oaicompat.Invalid("previous_response_id", "previous_response_id is of thread %s, and %s names %s", tr.ThreadID, headerThread, named)
	}
	return tr.ThreadID, nil
}
