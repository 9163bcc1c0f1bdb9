package web

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"yakor"
	"yakor/history"
	"yakor/llm"
)

// registerMemoryOnlyRoutes adds memory-only mode: the prompt for a message,
// and an import that runs no turn, for apps that call their own model.
func registerMemoryOnlyRoutes(g *gin.RouterGroup, s *Server) {
	g.POST("/threads/:id/context", s.handleContextPreview)
	g.POST("/threads/:id/messages/import", s.handleMessageImport)
}

// contextPreview is {"message": "…"}: the message to build a prompt for.
type contextPreview struct {
	Message string `json:"message"`
}

// messageImport is {"messages": [...]}: messages to append without turns.
type messageImport struct {
	Messages []importedMessage `json:"messages"`
}

// importedMessage is one message of an import.
type importedMessage struct {
	Role      string     `json:"role"`
	Content   string     `json:"content"`
	Author    string     `json:"author"`
	CreatedAt *time.Time `json:"created_at"`
	ClientID  string     `json:"client_id"`
}

// handleContextPreview returns the prompt a message would get (turn
// Preview): the messages in OpenAI's format, the layers with their sizes,
// and the history search's hits. It stores nothing and calls no model.
func (s *Server) handleContextPreview(c *gin.Context) {
	var in contextPreview
	if err := s.decode(c, &in); err != nil {
		s.fail(c, err)
		return
	}
	p, err := s.turns.Preview(c.Request.Context(), scopeOf(c).WithThread(c.Param("id")), in.Message)
	if err != nil {
		s.fail(c, err)
		return
	}
	msgs := make([]gin.H, len(p.Prompt.Messages))
	for i, m := range p.Prompt.Messages {
		msgs[i] = openAIMessage(m)
	}
	c.JSON(http.StatusOK, gin.H{
		"messages": msgs, "layers": toLayersJSON(p.Prompt.Layers), "total_chars": p.Prompt.TotalChars(),
		"hits": p.Search.Hits, "search": gin.H{"query": p.Search.Query, "keywords": p.Search.Keywords},
	})
}

// openAIMessage is a prompt message in OpenAI's chat format.
func openAIMessage(m llm.Message) gin.H {
	out := gin.H{"role": m.Role, "content": m.Content}
	if m.Name != "" {
		out["name"] = m.Name
	}
	if len(m.ToolCalls) > 0 {
		calls := make([]gin.H, len(m.ToolCalls))
		for i, tc := range m.ToolCalls {
			calls[i] = gin.H{"id": tc.ID, "type": "function", "function": gin.H{"name": tc.Name, "arguments": tc.Arguments}}
		}
		out["tool_calls"] = calls
	}
	if m.ToolCallID != "" {
		out["tool_call_id"] = m.ToolCallID
	}
	return out
}

// handleMessageImport appends up to the import limit of messages to a
// thread without running turns: all or none, each client id once, their
// times and authors kept; the thread's memory upkeep runs on them.
func (s *Server) handleMessageImport(c *gin.Context) {
	var in messageImport
	if err := s.decode(c, &in); err != nil {
		s.fail(c, err)
		return
	}
	msgs, err := s.importMessages(in.Messages, time.Now())
	if err != nil {
		s.fail(c, err)
		return
	}
	created, err := s.turns.Import(c.Request.Context(), scopeOf(c).WithThread(c.Param("id")), msgs)
	if err != nil {
		s.fail(c, err)
		return
	}
	out := make([]messageJSON, len(created))
	for i, m := range created {
		out[i] = toMessageJSON(m)
	}
	c.JSON(http.StatusCreated, gin.H{"messages": out, "created": len(created), "skipped": len(msgs) - len(created)})
}

// importFuture is how far in the future an imported message's time may be
// (clocks differ).
const importFuture = time.Minute

// importMessages checks an import's messages, naming the first bad one.
func (s *Server) importMessages(in []importedMessage, now time.Time) ([]history.NewMessage, error) {
	limit := s.maxImport
	if limit <= 0 {
		limit = history.DefaultMaxImport
	}
	switch {
	case len(in) == 0:
		return nil, yakor.Errorf(yakor.EINVALID, "messages is empty: send at least one")
	case len(in) > limit:
		return nil, yakor.Errorf(yakor.EINVALID, "messages holds %d messages; at most %d are imported at once (--max-import-messages)", len(in), limit)
	}
	out := make([]history.NewMessage, len(in))
	for i, m := range in {
		at := fmt.Sprintf("messages[%d]", i)
		if m.Role != history.RoleUser && m.Role != history.RoleAssistant {
			return nil, yakor.Errorf(yakor.EINVALID, "%s.role must be \"user\" or \"assistant\"", at)
		}
		if err := history.ValidateContent(m.Content, 0); err != nil {
			return nil, yakor.Errorf(yakor.ErrorCode(err), "%s.content: %s", at, yakor.ErrorMessage(err))
		}
		for field, v := range map[string]string{"author": m.Author, "client_id": m.ClientID} {
			if err := history.ValidText(field, v, 200); err != nil || (v != "" && strings.TrimSpace(v) == "") {
				return nil, yakor.Errorf(yakor.EINVALID, "%s.%s must be at most 200 characters of text", at, field)
			}
		}
		nm := history.NewMessage{Role: m.Role, Content: m.Content, Author: m.Author, ClientID: m.ClientID}
		if m.CreatedAt != nil {
			if m.CreatedAt.After(now.Add(importFuture)) {
				return nil, yakor.Errorf(yakor.EINVALID, "%s.created_at is in the future", at)
			}
			nm.CreatedAt = *m.CreatedAt
		}
		out[i] = nm
	}
	return out, nil
}
