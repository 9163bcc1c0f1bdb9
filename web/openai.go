package web

import (
	"cmp"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"yakor"
	"yakor/history"
	"yakor/turn"
	"yakor/web/oaicompat"
)

// The OpenAI-compatible endpoint's headers.
const (
	// headerThread names the thread a request continues; every response
	// names the thread it used.
	headerThread = "X-Yakor-Thread"
	// headerThreadNew says whether the request made the thread.
	headerThreadNew = "X-Yakor-Thread-New"
	// headerIdempotency is the turn's client id: a retried request answers
	// once and writes once.
	headerIdempotency = "Idempotency-Key"
)

// modelAlias is the model name that always means the configured chat model.
const modelAlias = "yakor"

// defaultConversation is the external key of a user's default
// conversation: the thread of the requests that name none.
const defaultConversation = "yakor:default"

// maxIdempotencyKey bounds Idempotency-Key, which becomes a client id.
const maxIdempotencyKey = 200

func registerOpenAIRoutes(e *gin.Engine, s *Server) {
	v1 := e.Group("/v1", openAIShape, s.authenticate())
	v1.GET("/models", s.handleModelIndex)
	v1.GET("/models/*id", s.handleModelView)
	v1.POST("/chat/completions", s.turnSlot(), s.handleChatCompletion)
	registerResponsesRoutes(v1, s)
}

// models are the names a request may give as its model: the alias and the
// configured chat model's name.
func (s *Server) models() []string {
	names := []string{modelAlias}
	if m := s.info.Chat.Model; m != "" && m != modelAlias {
		names = append(names, m)
	}
	return names
}

func (s *Server) handleModelIndex(c *gin.Context) {
	c.JSON(http.StatusOK, oaicompat.Models(s.models(), s.started.Unix()))
}

func (s *Server) handleModelView(c *gin.Context) {
	id := strings.TrimPrefix(c.Param("id"), "/")
	if !slices.Contains(s.models(), id) {
		s.fail(c, oaicompat.ModelNotFound(id, s.models()))
		return
	}
	c.JSON(http.StatusOK, oaicompat.Models([]string{id}, s.started.Unix()).Data[0])
}

// handleChatCompletion runs a turn for an OpenAI chat request: the newest
// user message is the turn, in the thread X-Yakor-Thread names, or the
// caller's thread for the user field, or a new one (openThread). The reply
// is a chat.completion, or with stream: true chat.completion.chunk events;
// the stream starts with the reply's first text, so a request refused
// before the model answers gets a plain error with its status.
func (s *Server) handleChatCompletion(c *gin.Context) {
	body, err := s.body(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	req, err := oaicompat.ParseChatRequest(body)
	if err != nil {
		s.fail(c, err)
		return
	}
	in, err := s.chatInputs(c, req)
	if err != nil {
		s.fail(c, err)
		return
	}
	scope, err := s.openTurn(c, &in, "", time.Now())
	if err != nil {
		s.fail(c, err)
		return
	}
	now := time.Now().Unix()
	if !in.Stream {
		out, err := s.sendTurn(c, scope, in.Turn, func(turn.Event) error { return nil })
		if err != nil {
			s.fail(c, err)
			return
		}
		c.JSON(http.StatusOK, oaicompat.Completion(out, in.Model, now))
		return
	}
	s.streamCompletion(c, scope, in, now)
}

// openTurn opens the request's thread (openThread), names it in the
// response's headers and links the turn into the client's conversation
// (linkTurn); it returns the turn's scope.
func (s *Server) openTurn(c *gin.Context, in *oaicompat.Inputs, prevResponse string, now time.Time) (yakor.Scope, error) {
	th, created, err := s.openThread(c, *in, prevResponse)
	if err != nil {
		return yakor.Scope{}, err
	}
	c.Header(headerThread, th.ID)
	c.Header(headerThreadNew, strconv.FormatBool(created))
	scope := scopeOf(c).WithThread(th.ID)
	return scope, s.linkTurn(c.Request.Context(), scope, in, now)
}

// openThread is the request's thread, within its end user (the user field
// or X-Yakor-User, else the key's user): the thread of the previous
// response (Responses API), or the one X-Yakor-Thread names (which must
// exist); else findOrOpen's. A thread made here gets the request's earlier
// messages as its history and its system messages as its system prompt; a
// thread that exists follows the client's conversation (follow), and takes
// a changed system prompt (recording the change).
func (s *Server) openThread(c *gin.Context, in oaicompat.Inputs, prevResponse string) (history.Thread, bool, error) {
	if err := s.actForRequestUser(c, in.User); err != nil {
		return history.Thread{}, false, err
	}
	ctx, scope := c.Request.Context(), scopeOf(c)
	id := strings.TrimSpace(c.GetHeader(headerThread))
	if prevResponse != "" {
		var err error
		if id, err = s.responseThread(c, prevResponse, id); err != nil {
			return history.Thread{}, false, err
		}
	}
	th, created, err := s.findOrOpen(c, in, id)
	if err == nil && !created {
		err = s.follow(ctx, scope.WithThread(th.ID), in)
	}
	if err != nil || created || in.SystemPrompt == "" || in.SystemPrompt == th.SystemPrompt {
		return th, created, err
	}
	th, err = s.threads.SetSystemPrompt(ctx, scope.WithThread(th.ID), in.SystemPrompt)
	return th, false, err
}

// findOrOpen is the request's thread: the one id names; else the thread of
// the client's conversation key; else, for a request that carries its
// conversation, the thread that holds it (history.FindChain); else the
// user's default conversation.
func (s *Server) findOrOpen(c *gin.Context, in oaicompat.Inputs, id string) (history.Thread, bool, error) {
	ctx, scope := c.Request.Context(), scopeOf(c)
	if id != "" {
		th, err := s.threads.FindThread(ctx, scope.WithThread(id))
		return th, false, err
	}
	key, err := conversationKey(c, in)
	if err != nil {
		return history.Thread{}, false, err
	}
	chains := history.Chains(in.History)
	for i := range in.History {
		in.History[i].Chain = chains[i]
	}
	if key == defaultConversation && len(in.History) > 0 {
		found, n, err := s.threads.FindChain(ctx, scope, chains)
		if err != nil {
			return history.Thread{}, false, err
		}
		if n > 0 {
			th, err := s.threads.FindThread(ctx, scope.WithThread(found))
			return th, false, err
		}
	}
	th, created, err := s.threads.OpenThread(ctx, scope, history.ThreadOpen{
		Key: key, Create: history.ThreadCreate{Title: in.Title, SystemPrompt: in.SystemPrompt}, History: in.History,
		MaxHistory: s.maxImport,
	})
	if errors.Is(err, history.ErrLongHistory) {
		return history.Thread{}, false, oaicompat.Invalid("messages", "%s", yakor.ErrorMessage(err))
	}
	return th, created, err
}

// conversationKey is the client's key for the request's conversation:
// X-Yakor-Conversation, or the body's (metadata.conversation,
// prompt_cache_key), which must agree with it; without either, the
// default conversation's.
func conversationKey(c *gin.Context, in oaicompat.Inputs) (string, error) {
	header := strings.TrimSpace(c.GetHeader(headerConversation))
	if header != "" && in.Conversation != "" && header != in.Conversation {
		return "", oaicompat.Invalid("metadata.conversation", "the %s header (%q) and the request's conversation (%q) differ; send one", headerConversation, header, in.Conversation)
	}
	return cmp.Or(header, strings.TrimSpace(in.Conversation), defaultConversation), nil
}

// streamCompletion streams the turn as chat.completion.chunk events: the
// assistant's role, the text as it comes, the finish reason, the usage when
// asked for, then [DONE]. A failure after the stream started is one
// data: {"error": …} event, and the stream ends without [DONE].
func (s *Server) streamCompletion(c *gin.Context, scope yakor.Scope, in oaicompat.Inputs, now int64) {
	sse := &sseWriter{c: c}
	var chunks *oaicompat.Stream
	begin := func(turnID string) error {
		if chunks != nil {
			return nil
		}
		chunks = oaicompat.NewStream(turnID, in.Model, now)
		return sse.data(chunks.Role())
	}
	out, err := s.sendTurn(c, scope, in.Turn, func(ev turn.Event) error {
		if ev.Text == "" {
			return nil // a search: Yakor's own, shown in the turn's trace
		}
		if err := begin(ev.TurnID); err != nil {
			return err
		}
		return sse.data(chunks.Delta(ev.Text))
	})
	if err != nil {
		if !sse.started {
			s.fail(c, err)
			return
		}
		if statusOf(err) >= 500 {
			s.log.WarnContext(c.Request.Context(), "streamed completion failed", "thread", scope.ThreadID, "err", err)
		}
		_ = sse.data(errorBody(c, statusOf(err), err))
		return
	}
	if err := begin(out.TurnID); err != nil {
		return
	}
	if out.Replayed && out.Text != "" {
		if err := sse.data(chunks.Delta(out.Text)); err != nil {
			return
		}
	}
	if len(out.ToolCalls) > 0 {
		if err := sse.data(chunks.ToolCalls(out.ToolCalls)); err != nil {
			return
		}
	}
	if err := sse.data(chunks.Finish(out.Usage)); err != nil {
		return
	}
	if in.IncludeUsage {
		if err := sse.data(chunks.Usage(out)); err != nil {
			return
		}
	}
	_ = sse.done()
}
