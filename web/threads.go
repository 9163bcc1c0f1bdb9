package web

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"yakor"
	"yakor/history"
	"yakor/turn"
)

func registerThreadRoutes(g *gin.RouterGroup, s *Server) {
	g.POST("/threads", s.handleThreadCreate)
	g.GET("/threads", s.handleThreadIndex)
	g.GET("/threads/:id", s.handleThreadView)
	g.PATCH("/threads/:id", s.handleThreadRename)
	g.GET("/threads/:id/context", s.handleThreadContext)
}

type threadJSON struct {
	ID           string `json:"id"`
	Title        string `json:"title"`
	ProjectID    string `json:"project_id,omitempty"`
	SystemPrompt string `json:"system_prompt,omitempty"`
	ExternalKey  string `json:"external_key,omitempty"`
	// SystemPromptChangedAt: when a client last changed the system prompt.
	SystemPromptChangedAt *time.Time `json:"system_prompt_changed_at,omitempty"`
	CreatedAt             time.Time  `json:"created_at"`
	UpdatedAt             time.Time  `json:"updated_at"`
}

func toThreadJSON(t history.Thread) threadJSON {
	return threadJSON{ID: t.ID, Title: t.Title, ProjectID: t.ProjectID, SystemPrompt: t.SystemPrompt, ExternalKey: t.ExternalKey, SystemPromptChangedAt: t.SystemPromptChangedAt, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt}
}

// threadCreate is a new thread: {"title"?, "project"?, "system_prompt"?}.
type threadCreate struct {
	Title        string `json:"title"`
	Project      string `json:"project"`
	SystemPrompt string `json:"system_prompt"`
}

func (s *Server) handleThreadCreate(c *gin.Context) {
	var req threadCreate
	if err := s.decode(c, &req); err != nil {
		s.fail(c, err)
		return
	}
	scope := scopeOf(c)
	tc := history.ThreadCreate{Title: req.Title, SystemPrompt: req.SystemPrompt}
	if req.Project != "" {
		id, err := s.projects.EnsureProject(c.Request.Context(), scope, req.Project)
		if err != nil {
			s.fail(c, err)
			return
		}
		tc.ProjectID = id
	}
	t, err := s.threads.CreateThread(c.Request.Context(), scope, tc)
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusCreated, toThreadJSON(t))
}

func (s *Server) handleThreadIndex(c *gin.Context) {
	p, err := readPage(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	f := history.ThreadFilter{Title: c.Query("q"), Limit: p.limit + 1, After: p.cursor.At, AfterID: p.cursor.Key}
	ts, err := s.threads.FindThreads(c.Request.Context(), scopeOf(c), f)
	if err != nil {
		s.fail(c, err)
		return
	}
	ts, next := paged(ts, p, func(t history.Thread) pageCursor { return pageCursor{At: t.UpdatedAt, Key: t.ID} })
	out := make([]threadJSON, len(ts))
	for i, t := range ts {
		out[i] = toThreadJSON(t)
	}
	c.JSON(http.StatusOK, pageBody("threads", out, next))
}

// threadRename is a thread's new title: {"title"}.
type threadRename struct {
	Title *string `json:"title"`
}

// handleThreadRename sets a thread's title: {"title"}.
func (s *Server) handleThreadRename(c *gin.Context) {
	var in threadRename
	if err := s.decode(c, &in); err != nil {
		s.fail(c, err)
		return
	}
	if in.Title == nil {
		s.fail(c, yakor.Errorf(yakor.EINVALID, "title is missing"))
		return
	}
	t, err := s.threads.RenameThread(c.Request.Context(), scopeOf(c).WithThread(c.Param("id")), *in.Title)
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toThreadJSON(t))
}

func (s *Server) handleThreadView(c *gin.Context) {
	t, err := s.threads.FindThread(c.Request.Context(), scopeOf(c).WithThread(c.Param("id")))
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toThreadJSON(t))
}

type layerJSON struct {
	Name   string `json:"name"`
	Chars  int    `json:"chars"`
	Budget int    `json:"budget,omitempty"`
	Items  int    `json:"items"`
	Text   string `json:"text"`
}

func (s *Server) handleThreadContext(c *gin.Context) {
	p, err := s.turns.Context(c.Request.Context(), scopeOf(c).WithThread(c.Param("id")))
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"layers": toLayersJSON(p.Layers), "total_chars": p.TotalChars()})
}

func toLayersJSON(ls []turn.Layer) []layerJSON {
	out := make([]layerJSON, len(ls))
	for i, l := range ls {
		out[i] = layerJSON{Name: l.Name, Chars: l.Chars, Budget: l.Budget, Items: l.Items, Text: l.Text}
	}
	return out
}
