package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"yakor"
	"yakor/lifecycle"
)

// Lifecycle deletes and exports a user's data.
type Lifecycle interface {
	DeleteThread(ctx context.Context, scope yakor.Scope) (lifecycle.Deleted, error)
	DeleteMessage(ctx context.Context, scope yakor.Scope, id int64) (lifecycle.Deleted, error)
	DeleteUser(ctx context.Context, scope yakor.Scope, userID string, keepRow bool) (lifecycle.Deleted, error)
	ExportUser(ctx context.Context, scope yakor.Scope, userID string) (lifecycle.Export, error)
}

func registerLifecycleRoutes(g *gin.RouterGroup, s *Server) {
	g.DELETE("/threads/:id", s.handleThreadDelete)
	g.DELETE("/messages/:id", s.handleMessageDelete)
	g.DELETE("/users/:id", s.handleUserDelete)
	g.GET("/users/:id/export", s.handleUserExport)
}

func (s *Server) handleThreadDelete(c *gin.Context) {
	d, err := s.lifecycle.DeleteThread(c.Request.Context(), scopeOf(c).WithThread(c.Param("id")))
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"deleted": d})
}

func (s *Server) handleMessageDelete(c *gin.Context) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		s.fail(c, yakor.Errorf(yakor.ENOTFOUND, "message %q not found", c.Param("id")))
		return
	}
	d, err := s.lifecycle.DeleteMessage(c.Request.Context(), scopeOf(c), id)
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"deleted": d})
}

// handleUserDelete deletes a user and everything of theirs. The local
// user's row stays (emptied): the keyless server serves it.
func (s *Server) handleUserDelete(c *gin.Context) {
	user, err := s.namedUser(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	scope := scopeOf(c)
	keep := scope.TenantID == s.local.TenantID && user == s.local.UserID
	d, err := s.lifecycle.DeleteUser(c.Request.Context(), scope, user, keep)
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"deleted": d})
}

func (s *Server) handleUserExport(c *gin.Context) {
	user, err := s.namedUser(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	out, err := s.lifecycle.ExportUser(c.Request.Context(), scopeOf(c), user)
	if err != nil {
		s.fail(c, err)
		return
	}
	c.Header("Content-Disposition", `attachment; filename="yakor-user-export.json"`)
	c.JSON(http.StatusOK, out)
}

// namedUser is the user id the path's {id} names: "me" (the request's
// user: the key's, or the end user X-Yakor-User names), a user id, or the
// app's id for an end user. Another user than the request's own is only
// for admin and backend keys (403 otherwise).
func (s *Server) namedUser(c *gin.Context) (string, error) {
	scope, id := scopeOf(c), strings.TrimSpace(c.Param("id"))
	if id == "me" || id == scope.UserID {
		return scope.UserID, nil
	}
	if !actsForUsers(c) {
		return "", yakor.Errorf(yakor.EFORBIDDEN, "this API key may act for its own user only: use /users/me")
	}
	if _, err := uuid.Parse(id); err == nil {
		return id, nil
	}
	if s.users == nil {
		return "", yakor.Errorf(yakor.ENOTFOUND, "user %q not found", id)
	}
	return s.users.FindEndUser(c.Request.Context(), scope.TenantID, id)
}
