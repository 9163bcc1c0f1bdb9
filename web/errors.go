package web

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"yakor"
)

// statuses maps error codes to HTTP statuses; it is the one place that does.
var statuses = map[string]int{
	yakor.EINVALID:      http.StatusBadRequest,
	yakor.EUNAUTHORIZED: http.StatusUnauthorized,
	yakor.EFORBIDDEN:    http.StatusForbidden,
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

// fail writes err as {"error": …} with its status, logging internal errors
// (whose details are never shown to the client).
func (s *Server) fail(c *gin.Context, err error) {
	status := statusOf(err)
	if status >= 500 {
		s.log.ErrorContext(c.Request.Context(), "request failed", "method", c.Request.Method, "path", c.Request.URL.Path, "status", status, "err", err)
	}
	var maxErr *http.MaxBytesError
	if errors.As(err, &maxErr) {
		status = http.StatusRequestEntityTooLarge
	}
	c.AbortWithStatusJSON(status, gin.H{"error": yakor.ErrorMessage(err)})
}
