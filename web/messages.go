package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"yakor"
	"yakor/history"
	"yakor/turn"
)

func registerMessageRoutes(g *gin.RouterGroup, s *Server) {
	g.POST("/threads/:id/messages", s.turnSlot(), s.handleMessageSend)
	g.GET("/threads/:id/messages", s.handleMessageIndex)
}

// messageJSON is the wire shape M of DESIGN.md.
type messageJSON struct {
	ID        int64     `json:"id"`
	Role      string    `json:"role"`
	Kind      string    `json:"kind"`
	Content   string    `json:"content"`
	ClientID  string    `json:"client_id,omitempty"`
	TurnID    string    `json:"turn_id,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	// SupersededAt is set on a message of an earlier branch (a client's
	// edit or regenerate): kept, out of the window and search.
	SupersededAt *time.Time `json:"superseded_at,omitempty"`
}

func toMessageJSON(m history.Message) messageJSON {
	return messageJSON{ID: m.ID, Role: m.Role, Kind: m.Kind, Content: m.Content, ClientID: m.ClientID, TurnID: m.TurnID, CreatedAt: m.CreatedAt, SupersededAt: m.SupersededAt}
}

type turnJSON struct {
	UserMessage messageJSON `json:"user_message"`
	Reply       messageJSON `json:"reply"`
	TurnID      string      `json:"turn_id"`
	Replayed    bool        `json:"replayed,omitempty"`
}

func toTurnJSON(o turn.Outcome) turnJSON {
	return turnJSON{UserMessage: toMessageJSON(o.UserMessage), Reply: toMessageJSON(o.Reply), TurnID: o.TurnID, Replayed: o.Replayed}
}

func (s *Server) handleMessageIndex(c *gin.Context) {
	p, err := readPage(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	f := history.MessageFilter{AfterID: p.cursor.ID, Limit: p.limit + 1}
	ms, err := s.threads.Messages(c.Request.Context(), scopeOf(c).WithThread(c.Param("id")), f)
	if err != nil {
		s.fail(c, err)
		return
	}
	ms, next := paged(ms, p, func(m history.Message) pageCursor { return pageCursor{ID: m.ID} })
	out := make([]messageJSON, len(ms))
	for i, m := range ms {
		out[i] = toMessageJSON(m)
	}
	c.JSON(http.StatusOK, pageBody("messages", out, next))
}

// messageSend is a message to answer: {"content", "client_id"?}.
type messageSend struct {
	Content  *string `json:"content"`
	ClientID string  `json:"client_id"`
}

// handleMessageSend runs a turn. With Accept: text/event-stream the reply
// streams as SSE events delta, search (one per search the model makes),
// done and error; the stream starts with the
// first delta, so a request refused before the model is called gets a plain
// JSON error with its status.
func (s *Server) handleMessageSend(c *gin.Context) {
	var req messageSend
	if err := s.decode(c, &req); err != nil {
		s.fail(c, err)
		return
	}
	if req.Content == nil {
		s.fail(c, yakor.Errorf(yakor.EINVALID, `field "content" is required`))
		return
	}
	scope := scopeOf(c).WithThread(c.Param("id"))
	in := turn.Input{Content: *req.Content, ClientID: req.ClientID}

	if !strings.Contains(c.GetHeader("Accept"), "text/event-stream") {
		out, err := s.turns.Send(c.Request.Context(), scope, in, func(turn.Event) error { return nil })
		if err != nil {
			s.fail(c, err)
			return
		}
		c.JSON(http.StatusOK, toTurnJSON(out))
		return
	}

	sse := &sseWriter{c: c}
	out, err := s.turns.Send(c.Request.Context(), scope, in, func(ev turn.Event) error {
		if ev.Search != nil {
			return sse.event("search", toSearchJSON(ev.Search.Query, ev.Search.Keywords, ev.Search.Hits))
		}
		return sse.event("delta", gin.H{"text": ev.Text})
	})
	if err != nil {
		if !sse.started {
			s.fail(c, err)
			return
		}
		if statusOf(err) >= 500 {
			s.log.WarnContext(c.Request.Context(), "streamed turn failed", "thread", scope.ThreadID, "err", err)
		}
		_ = sse.event("error", gin.H{"error": yakor.ErrorMessage(err)})
		return
	}
	_ = sse.event("done", toTurnJSON(out))
}

// sseWriter writes Server-Sent Events, sending the headers with the first.
type sseWriter struct {
	c       *gin.Context
	started bool
}

// data writes an event without a name, as OpenAI's streams have them.
func (w *sseWriter) data(data any) error { return w.event("", data) }

// done ends an OpenAI stream: data: [DONE].
func (w *sseWriter) done() error { return w.write([]byte("data: [DONE]")) }

// event writes the event name (none when "") and data as JSON.
func (w *sseWriter) event(name string, data any) error {
	b, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("sse: %w", err)
	}
	if name != "" {
		return w.write(append([]byte("event: "+name+"\ndata: "), b...))
	}
	return w.write(append([]byte("data: "), b...))
}

// write sends one event's lines, after the headers when it is the first.
func (w *sseWriter) write(lines []byte) error {
	if !w.started {
		w.started = true
		h := w.c.Writer.Header()
		h.Set("Content-Type", "text/event-stream; charset=utf-8")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no")
		w.c.Status(http.StatusOK)
	}
	if _, err := fmt.Fprintf(w.c.Writer, "%s\n\n", lines); err != nil {
		return fmt.Errorf("sse: client gone: %w", err)
	}
	w.c.Writer.Flush()
	return nil
}
