package web

import (
	"github.com/gin-gonic/gin"

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
