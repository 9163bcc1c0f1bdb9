package web

import (
	"mime"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"

	"yakor"
)

// Local-mode guard. Without keys, the server obeys whoever reaches it, and
// a web page in its owner's browser reaches loopback too. So while it runs
// keyless it answers only requests that name it by a loopback Host with its
// own port (no DNS rebinding), whose Origin, when sent, is its own (no other
// page's fetch or form), and whose writes are JSON (no text/plain or form
// post, which a page may send without asking). Origins named in
// --cors-origins are let in, in any mode, with CORS headers.

// corsHeaders are the request headers a cross-origin client may send.
const corsHeaders = "Authorization, Content-Type, Idempotency-Key, X-Yakor-User, X-Yakor-Thread, X-Yakor-Conversation"

// guard is the server's first middleware after recovery.
func (s *Server) guard() gin.HandlerFunc {
	return func(c *gin.Context) {
		origin := c.GetHeader("Origin")
		allowed := origin != "" && slices.Contains(s.corsOrigins, origin)
		if allowed {
			h := c.Writer.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
			h.Set("Access-Control-Expose-Headers", "X-Yakor-Thread, X-Yakor-Thread-New, Retry-After")
			if c.Request.Method == http.MethodOptions && c.GetHeader("Access-Control-Request-Method") != "" {
				h.Set("Access-Control-Allow-Methods", "GET, POST, PATCH, DELETE")
				h.Set("Access-Control-Allow-Headers", corsHeaders)
				h.Set("Access-Control-Max-Age", "600")
				c.AbortWithStatus(http.StatusNoContent)
				return
			}
		}
		if local, err := s.keyless(c); err != nil || !local {
			c.Next() // keys guard the server (an error is the handler's to report)
			return
		}
		if err := localRequestOK(c, allowed); err != nil {
			c.Set(shapeKey, openAIPath(c))
			s.abort(c, err)
			return
		}
		c.Next()
	}
}

// keyless reports whether the server answers without keys now: it was
// given none to check (tests), or none was ever made and it listens on
// loopback only (localAllowed).
func (s *Server) keyless(c *gin.Context) (bool, error) {
	if s.auth.keys == nil {
		return true, nil
	}
	return s.auth.localAllowed(c.Request.Context())
}

// localRequestOK checks a request to a keyless server: its Host, its
// Origin (unless corsOK, an origin --cors-origins names) and, for a write
// with a body, its Content-Type.
func localRequestOK(c *gin.Context, corsOK bool) error {
	r := c.Request
	if !ownHost(r) {
		return yakor.Errorf(yakor.EFORBIDDEN, "this server answers without an API key, so only as %s: the Host %q is not its loopback address (a DNS rebinding page would send that)", localName(r), r.Host)
	}
	if origin := r.Header.Get("Origin"); origin != "" && !corsOK && origin != "http://"+r.Host {
		return yakor.Errorf(yakor.EFORBIDDEN, "this server answers without an API key, so it takes no requests from other web pages (Origin %q); list a trusted origin with --cors-origins", origin)
	}
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		if r.ContentLength == 0 {
			return nil
		}
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			return yakor.Errorf(yakor.EMEDIATYPE, "send the body as JSON, with \"Content-Type: application/json\" (got %q)", r.Header.Get("Content-Type"))
		}
	}
	return nil
}

// ownHost reports whether the request names the server by a loopback name
// or address with the port it came in on.
func ownHost(r *http.Request) bool {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		return false
	}
	laddr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	_, ownPort, err := net.SplitHostPort(laddr.String())
	if err != nil || port != ownPort {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	if ip == nil {
		return false // a name other than localhost: a rebinding page's
	}
	// A loopback address, or the address the request came in on (a
	// keyless server on a trusted network, --allow-no-keys).
	own, _, _ := net.SplitHostPort(laddr.String())
	return ip.IsLoopback() || ip.Equal(net.ParseIP(own))
}

// localName is how a keyless server is reached: localhost with its port.
func localName(r *http.Request) string {
	if laddr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if _, port, err := net.SplitHostPort(laddr.String()); err == nil {
			return "localhost:" + port
		}
	}
	return "localhost"
}
