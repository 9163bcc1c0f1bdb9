package web

import (
	"github.com/gin-gonic/gin"

	"yakor"
	"yakor/account"
)

// What a request's caller may do beyond its own user's data. These two are
// the one place the web layer asks; every route that reads or changes
// another user's memory goes through them.

// tenantAdmin reports whether the caller administers its tenant: it may
// see and change every user's memory there and manage keys. A request
// without a key caller is the local user's, who administers the local
// tenant.
func tenantAdmin(c *gin.Context) bool {
	v, ok := c.Get(callerKey)
	return !ok || v.(account.Caller).Role == account.RoleAdmin
}

// actsForUsers reports whether the caller may act for any end user of its
// tenant (name them, delete them, export them): an admin or a backend key,
// or the keyless local mode, which acts as a backend.
func actsForUsers(c *gin.Context) bool {
	v, ok := c.Get(callerKey)
	return !ok || v.(account.Caller).Role.ActsForUsers()
}

// memoryScope is the scope of a request to long-term memory (experiences,
// topics, fails, articles): the caller's user, who sees its own entries and
// the tenant's shared ones, or, for the tenant's admin acting as nobody in
// particular (no X-Yakor-User), the whole tenant (a scope without a user).
func memoryScope(c *gin.Context) yakor.Scope {
	scope := scopeOf(c)
	if tenantAdmin(c) && c.GetHeader(headerUser) == "" {
		scope.UserID = ""
	}
	return scope
}
