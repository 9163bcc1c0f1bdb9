package web

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

func registerTurnRoutes(g *gin.RouterGroup, s *Server) {
	g.GET("/turns/:id", s.handleTurnView)
}

// handleTurnView returns a turn's trace: the prompt's layers and sizes,
// timings, model and outcome.
func (s *Server) handleTurnView(c *gin.Context) {
	tr, err := s.turns.FindTrace(c.Request.Context(), scopeOf(c), c.Param("id"))
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, tr)
}
