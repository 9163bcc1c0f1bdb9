package web

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"

	"yakor"
	"yakor/facts"
)

// Facts reads and edits a user's facts (facts.Store).
type Facts interface {
	List(ctx context.Context, scope yakor.Scope, f facts.Filter) ([]facts.Fact, error)
	Add(ctx context.Context, scope yakor.Scope, in facts.Input) (facts.Fact, error)
	Update(ctx context.Context, scope yakor.Scope, id int64, u facts.Update) (facts.Fact, error)
	Delete(ctx context.Context, scope yakor.Scope, id int64) error
}

// Resetter clears memory on a user's word.
type Resetter interface {
	RefreshThread(ctx context.Context, scope yakor.Scope) (map[string]int, error)
	PurgeUser(ctx context.Context, scope yakor.Scope) (map[string]int, error)
}

func registerFactRoutes(g *gin.RouterGroup, s *Server) {
	g.GET("/facts", s.handleFactIndex)
	g.POST("/facts", s.handleFactCreate)
	g.PATCH("/facts/:id", s.handleFactUpdate)
	g.DELETE("/facts/:id", s.handleFactDelete)
	g.POST("/threads/:id/refresh", s.handleThreadRefresh)
	g.DELETE("/users/me/memory", s.handleMemoryPurge)
}

// handleFactIndex lists the caller's facts: ?scope=chat|user|project,
// ?thread= (that chat's facts, and that thread's project's), ?closed=true
// (superseded, forgotten and evicted ones too).
func (s *Server) handleFactIndex(c *gin.Context) {
	p, err := readPage(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	f := facts.Filter{Scope: c.Query("scope"), ThreadID: c.Query("thread"), Closed: c.Query("closed") == "true", Page: p.idPage()}
	fs, err := s.facts.List(c.Request.Context(), scopeOf(c), f)
	if err != nil {
		s.fail(c, err)
		return
	}
	fs, next := paged(fs, p, func(f facts.Fact) pageCursor { return pageCursor{ID: f.ID} })
	c.JSON(http.StatusOK, pageBody("facts", fs, next))
}

// factCreate is a fact by hand: {"scope", "kind"?, "text", "thread"?}.
type factCreate struct {
	Scope  string `json:"scope"`
	Kind   string `json:"kind"`
	Text   string `json:"text"`
	Thread string `json:"thread"`
}

func (s *Server) handleFactCreate(c *gin.Context) {
	var in factCreate
	if err := s.decode(c, &in); err != nil {
		s.fail(c, err)
		return
	}
	f, err := s.facts.Add(c.Request.Context(), scopeOf(c), facts.Input{Scope: in.Scope, Kind: in.Kind, Text: in.Text, ThreadID: in.Thread})
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusCreated, f)
}

// factUpdate edits a fact: {"text"?, "kind"?}.
type factUpdate struct {
	Text *string `json:"text"`
	Kind *string `json:"kind"`
}

func (s *Server) handleFactUpdate(c *gin.Context) {
	id, err := pathID(c, "fact")
	if err != nil {
		s.fail(c, err)
		return
	}
	var in factUpdate
	if err := s.decode(c, &in); err != nil {
		s.fail(c, err)
		return
	}
	f, err := s.facts.Update(c.Request.Context(), scopeOf(c), id, facts.Update{Text: in.Text, Kind: in.Kind})
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, f)
}

func (s *Server) handleFactDelete(c *gin.Context) {
	id, err := pathID(c, "fact")
	if err != nil {
		s.fail(c, err)
		return
	}
	if err := s.facts.Delete(c.Request.Context(), scopeOf(c), id); err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"deleted": gin.H{"facts": 1}})
}

// handleThreadRefresh clears the thread's short-term memory (anchors,
// summaries, chat facts); its messages stay.
func (s *Server) handleThreadRefresh(c *gin.Context) {
	deleted, err := s.resetter.RefreshThread(c.Request.Context(), scopeOf(c).WithThread(c.Param("id")))
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"deleted": deleted})
}

// handleMemoryPurge deletes the caller's facts, the experiences from their
// conversations and their anchors.
func (s *Server) handleMemoryPurge(c *gin.Context) {
	deleted, err := s.resetter.PurgeUser(c.Request.Context(), scopeOf(c))
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"deleted": deleted})
}
