package web

import (
	"context"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"yakor"
	"yakor/likbez"
)

// Research shows the research job's work.
type Research interface {
	Articles(ctx context.Context, scope yakor.Scope, topicID int64, page yakor.Page) ([]likbez.Article, error)
	Status(ctx context.Context, scope yakor.Scope) (likbez.Status, error)
}

// ResearchQueue starts research runs and knows the schedule.
type ResearchQueue interface {
	EnqueueResearch(ctx context.Context) error
	NextResearch(now time.Time) *time.Time
}

func registerResearchRoutes(g *gin.RouterGroup, s *Server) {
	g.GET("/research/articles", s.handleArticleIndex)
	g.GET("/research/status", s.handleResearchStatus)
	g.POST("/research/run", s.handleResearchRun)
}

// handleArticleIndex lists study notes: ?topic= (a topic id) narrows them.
func (s *Server) handleArticleIndex(c *gin.Context) {
	topic, err := intQuery(c, "topic")
	if err != nil {
		s.fail(c, err)
		return
	}
	p, err := readPage(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	as, err := s.research.Articles(c.Request.Context(), memoryScope(c), int64(topic), p.idPage())
	if err != nil {
		s.fail(c, err)
		return
	}
	as, next := paged(as, p, func(a likbez.Article) pageCursor { return pageCursor{ID: a.ID} })
	c.JSON(http.StatusOK, pageBody("articles", as, next))
}

// handleResearchStatus says whether a source is configured, whether a run
// is going on, how the last one went, the next scheduled run, and the
// caller's topics by status.
func (s *Server) handleResearchStatus(c *gin.Context) {
	st, err := s.research.Status(c.Request.Context(), memoryScope(c))
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"source_configured": st.SourceConfigured, "message": st.Message, "running": st.Running,
		"last_run": st.LastRun, "next_run_at": s.researchQueue.NextResearch(time.Now()), "topics": st.Topics})
}

// handleResearchRun queues a research run now: 202, or 409 when one is
// already queued or running.
func (s *Server) handleResearchRun(c *gin.Context) {
	if !tenantAdmin(c) {
		s.fail(c, yakor.Errorf(yakor.EFORBIDDEN, "only an admin key may start a research run"))
		return
	}
	if err := s.researchQueue.EnqueueResearch(c.Request.Context()); err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusAccepted, gin.H{"queued": true})
}
