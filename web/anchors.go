package web

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"yakor"
	"yakor/anchors"
)

// Anchors reads and edits a thread's anchors.
type Anchors interface {
	List(ctx context.Context, scope yakor.Scope) (anchors.List, error)
	UpdateAnchor(ctx context.Context, scope yakor.Scope, id int64, u anchors.Update) (anchors.Anchor, error)
	DeleteAnchor(ctx context.Context, scope yakor.Scope, id int64) error
}

func registerAnchorRoutes(g *gin.RouterGroup, s *Server) {
	g.GET("/threads/:id/anchors", s.handleAnchorIndex)
	g.PATCH("/anchors/:id", s.handleAnchorUpdate)
	g.DELETE("/anchors/:id", s.handleAnchorDelete)
}

type anchorJSON struct {
	ID        int64   `json:"id"`
	Topic     string  `json:"topic"`
	Data      string  `json:"data"`
	MessageID int64   `json:"message_id"`
	CharPos   int64   `json:"char_pos"`
	Absorbed  []int64 `json:"absorbed"`
	Current   bool    `json:"current"`
	// Episode marks an anchor that folds older ones (absorbed), spanning
	// the days from first_at to last_at.
	Episode   bool      `json:"episode"`
	FirstAt   time.Time `json:"first_at"`
	LastAt    time.Time `json:"last_at"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func toAnchorJSON(a anchors.Anchor, current int64) anchorJSON {
	abs := a.Absorbed
	if abs == nil {
		abs = []int64{}
	}
	return anchorJSON{ID: a.ID, Topic: a.Topic, Data: a.Data, MessageID: a.MessageID, CharPos: a.CharPos, Absorbed: abs,
		Current: a.ID == current, Episode: a.Episode, FirstAt: a.FirstAt, LastAt: a.LastAt, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
}

// handleAnchorIndex lists a thread's anchors, oldest first, with how far
// the thread has been anchored (processed_through: a message id).
func (s *Server) handleAnchorIndex(c *gin.Context) {
	scope := scopeOf(c).WithThread(c.Param("id"))
	if _, err := s.threads.FindThread(c.Request.Context(), scope); err != nil {
		s.fail(c, err)
		return
	}
	l, err := s.anchors.List(c.Request.Context(), scope)
	if err != nil {
		s.fail(c, err)
		return
	}
	out := make([]anchorJSON, len(l.Anchors))
	for i, a := range l.Anchors {
		out[i] = toAnchorJSON(a, l.CurrentID)
	}
	c.JSON(http.StatusOK, gin.H{"anchors": out, "processed_through": l.ProcessedThrough})
}

func anchorID(c *gin.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, yakor.Errorf(yakor.ENOTFOUND, "anchor %q not found", c.Param("id"))
	}
	return id, nil
}

// anchorUpdate edits an anchor: {"topic"?, "data"?}.
type anchorUpdate struct {
	Topic *string `json:"topic"`
	Data  *string `json:"data"`
}

func (s *Server) handleAnchorUpdate(c *gin.Context) {
	id, err := anchorID(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	var req anchorUpdate
	if err := s.decode(c, &req); err != nil {
		s.fail(c, err)
		return
	}
	if req.Topic == nil && req.Data == nil {
		s.fail(c, yakor.Errorf(yakor.EINVALID, `send "topic" or "data" to change`))
		return
	}
	a, err := s.anchors.UpdateAnchor(c.Request.Context(), scopeOf(c), id, anchors.Update{Topic: req.Topic, Data: req.Data})
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toAnchorJSON(a, 0))
}

func (s *Server) handleAnchorDelete(c *gin.Context) {
	id, err := anchorID(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	if err := s.anchors.DeleteAnchor(c.Request.Context(), scopeOf(c), id); err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"deleted": gin.H{"anchors": 1}})
}
