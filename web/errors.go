package web

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"yakor"
	"yakor/web/oaicompat"
)

// statuses maps error codes to HTTP statuses; it is the one place that does.
var statuses = map[string]int{
	yakor.EINVALID:      http.StatusBadRequest,
	yakor.EUNAUTHORIZED: http.StatusUnauthorized,
	yakor.EFORBIDDEN:    http.StatusForbidden,
	yakor.EMEDIATYPE:    http.StatusUnsupportedMediaType,
	yakor.ENOTFOUND:     http.StatusNotFound,
	yakor.ECONFLICT:     http.StatusConflict,
	yakor.ETOOLARGE:     http.StatusRequestEntityTooLarge,
	yakor.EINTERNAL:     http.StatusInternalServerError,
	yakor.EMODEL:        http.StatusBadGateway,
	yakor.EUNAVAILABLE:  http.StatusServiceUnavailable,
	yakor.ETIMEOUT:      http.StatusGatewayTimeout,
	yakor.ETOOMANY:      http.StatusTooManyRequests,
}

// statusOf returns the HTTP status for err.
func statusOf(err error) int {
	if s, ok := statuses[yakor.ErrorCode(err)]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// fail writes err with its status, logging internal errors (whose details
// are never shown to the client).
func (s *Server) fail(c *gin.Context, err error) {
	if yakor.ErrorCode(err) == yakor.EUNAVAILABLE {
		if d := s.diagnosis(); d != nil {
			err = fmt.Errorf("%w: %w", d, err)
		}
	}
	status := statusOf(err)
	if status >= 500 {
		s.log.ErrorContext(c.Request.Context(), "request failed", "method", c.Request.Method, "path", c.Request.URL.Path, "status", status, "err", err)
	}
	var maxErr *http.MaxBytesError
	if errors.As(err, &maxErr) {
		status = http.StatusRequestEntityTooLarge
	}
	if status == http.StatusServiceUnavailable && c.Writer.Header().Get("Retry-After") == "" {
		// The database (or another dependency) is away: most outages a
		// client sees are a restart or a failover of a few seconds.
		c.Header("Retry-After", "1")
	}
	render(c, status, err)
}

// diagnosis is why the database cannot serve, when Deps.Diagnose can
// tell; nil otherwise.
func (s *Server) diagnosis() error {
	if s.diagnose == nil {
		return nil
	}
	return s.diagnose()
}

// render ends the request with err's body (errorBody) and status.
func render(c *gin.Context, status int, err error) {
	c.AbortWithStatusJSON(status, errorBody(c, status, err))
}

// shapeKey marks a request whose errors take OpenAI's shape.
const shapeKey = "yakor.shape.openai"

// openAIShape makes the request's errors take OpenAI's shape
// {"error": {"message", "type", "param", "code"}}; without it they are
// Yakor's {"error": message}.
func openAIShape(c *gin.Context) {
	c.Set(shapeKey, true)
	c.Next()
}

// openAIPath reports whether the request is for the OpenAI-compatible
// routes (for the ones that match no route, which no group middleware sees).
func openAIPath(c *gin.Context) bool {
	p := c.Request.URL.Path
	return p == "/v1" || strings.HasPrefix(p, "/v1/")
}

// errorBody is err as the request's error shape has it, showing only the
// message of a coded error ("internal error" for others).
func errorBody(c *gin.Context, status int, err error) any {
	msg := yakor.ErrorMessage(err)
	if !c.GetBool(shapeKey) {
		return gin.H{"error": msg}
	}
	var re *oaicompat.RequestError
	param, code := "", ""
	if errors.As(err, &re) {
		param, code = re.Param, re.Code
	}
	return oaicompat.NewError(status, msg, param, code)
}
