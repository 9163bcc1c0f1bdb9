package web

import (
	"log/slog"
	"net/http"

	"github.com/gin-gonic/gin"

	"yakor"
)

// Routes lists the server's routes as "METHOD path", for the test that
// checks every route naming an id against another tenant's.
func Routes(s *Server) []string {
	var out []string
	for _, r := range s.engine.Routes() {
		out = append(out, r.Method+" "+r.Path)
	}
	return out
}

// RequestBodies returns, by name, a new value of each request body type
// the native API's handlers decode with decode.
func RequestBodies() map[string]any {
	return map[string]any{
		"anchorUpdate":     new(anchorUpdate),
		"experienceCreate": new(experienceCreate),
		"factCreate":       new(factCreate),
		"factUpdate":       new(factUpdate),
		"feedbackGive":     new(feedbackGive),
		"keyCreate":        new(keyCreate),
		"messageSend":      new(messageSend),
		"contextPreview":   new(contextPreview),
		"messageImport":    new(messageImport),
		"threadCreate":     new(threadCreate),
		"threadRename":     new(threadRename),
		"topicCreate":      new(topicCreate),
	}
}

// DecodeHandler is a gin engine with no database whose POST /{name}
// decodes the body with decode (under a body limit of limit bytes) into a
// new value of the request body type RequestBodies names, and answers it
// as JSON, or the error as fail writes it.
func DecodeHandler(limit int64) http.Handler {
	gin.SetMode(gin.ReleaseMode)
	s := &Server{log: slog.New(slog.DiscardHandler), maxBodyBytes: limit}
	e := gin.New()
	e.POST("/:name", func(c *gin.Context) {
		v, ok := RequestBodies()[c.Param("name")]
		if !ok {
			s.fail(c, yakor.Errorf(yakor.ENOTFOUND, "no request body type %q", c.Param("name")))
			return
		}
		if err := s.decode(c, v); err != nil {
			s.fail(c, err)
			return
		}
		c.JSON(http.StatusOK, v)
	})
	return e
}
