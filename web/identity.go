package web

import (
	"context"
	"strings"

	"github.com/gin-gonic/gin"

	"yakor"
	"yakor/web/oaicompat"
)

// Identity headers: the end user a request is for, and, on /v1, the
// client's own key for the conversation.
const (
	headerUser         = "X-Yakor-User"
	headerConversation = "X-Yakor-Conversation"
)

// Users finds and makes a tenant's end users by the app's id for them.
type Users interface {
	EnsureEndUser(ctx context.Context, tenantID, externalID string) (string, error)
	FindEndUser(ctx context.Context, tenantID, externalID string) (string, error)
}

// actForEndUser narrows the request to the end user the app calls
// externalID ("" leaves it as it is). An admin or backend key, and the
// keyless local mode, may name any end user of its tenant, who is made on
// first sight; a user key may name only its own user (403 otherwise).
func (s *Server) actForEndUser(c *gin.Context, externalID string) error {
	externalID = strings.TrimSpace(externalID)
	if externalID == "" {
		return nil
	}
	if s.users == nil {
		return yakor.Errorf(yakor.EINVALID, "this server does not take %s", headerUser)
	}
	ctx, scope := c.Request.Context(), scopeOf(c)
	if !actsForUsers(c) {
		id, err := s.users.FindEndUser(ctx, scope.TenantID, externalID)
		if yakor.ErrorCode(err) == yakor.ENOTFOUND || err == nil && id != scope.UserID {
			return yakor.Errorf(yakor.EFORBIDDEN, "this API key is bound to its own user and may not act for %q: only admin and backend keys name end users", externalID)
		}
		return err
	}
	id, err := s.users.EnsureEndUser(ctx, scope.TenantID, externalID)
	if err != nil {
		return err
	}
	scope.UserID = id
	actAs(c, scope)
	return nil
}

// actForRequestUser takes /v1's user (or safety_identifier) field as the
// end user, as X-Yakor-User is taken: the two must agree when both are
// sent.
func (s *Server) actForRequestUser(c *gin.Context, user string) error {
	header := strings.TrimSpace(c.GetHeader(headerUser))
	switch {
	case user == "" || user == header:
		return nil
	case header != "":
		return oaicompat.Invalid("user", "the %s header (%q) and the user field (%q) name different end users; send one", headerUser, header, user)
	}
	return s.actForEndUser(c, user)
}
