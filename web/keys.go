package web

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"

	"yakor"
	"yakor/account"
)

// KeyAdmin makes, lists and revokes a tenant's API keys. The Keys given in
// Deps serves the key routes when it is a KeyAdmin too.
type KeyAdmin interface {
	CreateKey(ctx context.Context, nk account.NewKey) (account.Key, string, error)
	Keys(ctx context.Context, f account.KeyFilter) ([]account.Key, error)
	RevokeTenantKey(ctx context.Context, tenantID, id string) (account.Key, error)
}

// registerKeyRoutes serves /keys: an admin key manages its own tenant's
// keys there, and so does the local user (loopback, no key made yet), for
// the local tenant: that is how an operator makes the first key without
// the command line.
func registerKeyRoutes(g *gin.RouterGroup, s *Server) {
	keys := g.Group("/keys", s.requireAdmin("manage API keys"))
	keys.POST("", s.handleKeyCreate)
	keys.GET("", s.handleKeyIndex)
	keys.DELETE("/:id", s.handleKeyRevoke)
}

// requireAdmin refuses a key that is not an admin key the right to do
// what. A request without a caller is the local user's, who administers
// the local tenant.
func (s *Server) requireAdmin(what string) gin.HandlerFunc {
	return func(c *gin.Context) {
		if !tenantAdmin(c) {
			s.abort(c, yakor.Errorf(yakor.EFORBIDDEN, "this API key may not %s: only an admin key may (an operator makes one with `yakor keys create --role admin`)", what))
			return
		}
		c.Next()
	}
}

// createdKey is a new key with its secret, which no other response shows.
type createdKey struct {
	account.Key
	Secret string `json:"secret"`
}

// keyCreate is a new key: {"name"?, "user"?, "rate_per_minute"?,
// "max_turns"?, "role"?}; "admin": true is role "admin"; a "tenant" is
// refused.
type keyCreate struct {
	Name          string       `json:"name"`
	User          string       `json:"user"`
	RatePerMinute *int         `json:"rate_per_minute"`
	MaxTurns      *int         `json:"max_turns"`
	Role          account.Role `json:"role"`
	Admin         bool         `json:"admin"`
	Tenant        *string      `json:"tenant"`
}

// handleKeyCreate makes a key in the caller's tenant, acting as the user
// named (made when missing) or, without one, as the caller's own user.
func (s *Server) handleKeyCreate(c *gin.Context) {
	var in keyCreate
	if err := s.decode(c, &in); err != nil {
		s.fail(c, err)
		return
	}
	if in.Tenant != nil {
		s.fail(c, yakor.Errorf(yakor.EINVALID, "tenant cannot be chosen: a key is made in the tenant of the key that makes it; leave tenant out"))
		return
	}
	rate, err := keyLimit("rate_per_minute", in.RatePerMinute)
	if err != nil {
		s.fail(c, err)
		return
	}
	turns, err := keyLimit("max_turns", in.MaxTurns)
	if err != nil {
		s.fail(c, err)
		return
	}
	scope := scopeOf(c)
	nk := account.NewKey{TenantID: scope.TenantID, User: in.User, Name: in.Name, RatePerMinute: rate, MaxTurns: turns, Role: in.Role}
	if in.Admin {
		nk.Role = account.RoleAdmin
	}
	if strings.TrimSpace(in.User) == "" {
		nk.UserID = scope.UserID
	}
	k, secret, err := s.keyAdmin.CreateKey(c.Request.Context(), nk)
	if err != nil {
		s.fail(c, err)
		return
	}
	s.auth.keyMade()
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusCreated, createdKey{Key: k, Secret: secret})
}

// keyLimit reads an optional limit: absent is 0 (the default); present, it
// must be at least 1.
func keyLimit(field string, v *int) (int, error) {
	if v == nil {
		return 0, nil
	}
	if *v < 1 {
		return 0, yakor.Errorf(yakor.EINVALID, "%s must be at least 1, not %d (leave it out for the default)", field, *v)
	}
	return *v, nil
}

// handleKeyIndex lists the caller's tenant's keys, revoked ones too, newest
// first: never a secret, only its first characters.
func (s *Server) handleKeyIndex(c *gin.Context) {
	p, err := readPage(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	keys, err := s.keyAdmin.Keys(c.Request.Context(), account.KeyFilter{TenantID: scopeOf(c).TenantID})
	if err != nil {
		s.fail(c, err)
		return
	}
	// A tenant's keys are few: the page is cut from the list, newest first
	// (then by id), after the cursor's key.
	if p.cursor.Key != "" {
		keys = slices.DeleteFunc(keys, func(k account.Key) bool {
			return !k.CreatedAt.Before(p.cursor.At) && !(k.CreatedAt.Equal(p.cursor.At) && k.ID > p.cursor.Key)
		})
	}
	keys, next := paged(keys, p, func(k account.Key) pageCursor { return pageCursor{At: k.CreatedAt, Key: k.ID} })
	c.JSON(http.StatusOK, pageBody("keys", keys, next))
}

// handleKeyRevoke revokes one of the caller's tenant's keys; revoking it
// again changes nothing.
func (s *Server) handleKeyRevoke(c *gin.Context) {
	k, err := s.keyAdmin.RevokeTenantKey(c.Request.Context(), scopeOf(c).TenantID, c.Param("id"))
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, k)
}
