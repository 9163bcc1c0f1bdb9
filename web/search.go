package web

import (
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"yakor"
	"yakor/search"
)

func registerSearchRoutes(g *gin.RouterGroup, s *Server) {
	g.GET("/threads/:id/search", s.handleThreadSearch)
}

func toSearchJSON(query string, keywords []string, hits []search.Hit) gin.H {
	return gin.H{"query": query, "keywords": keywords, "hits": hits}
}

// handleThreadSearch searches a thread with the engine the model uses:
// ?q= the words, ?budget= characters of hits (default 8,000), ?limit= hits,
// ?before= a message id (only what precedes it, as a turn's search).
func (s *Server) handleThreadSearch(c *gin.Context) {
	q := c.Query("q")
	if err := validQuery(q); err != nil {
		s.fail(c, err)
		return
	}
	opt := search.Options{}
	if v := c.Query("before"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id < 1 {
			s.fail(c, yakor.Errorf(yakor.EINVALID, "before must be a message id"))
			return
		}
		opt.BeforeID = id
	}
	for name, dst := range map[string]*int{"budget": &opt.Budget, "limit": &opt.Limit} {
		if v := c.Query(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 1_000_000 {
				s.fail(c, yakor.Errorf(yakor.EINVALID, "%s must be a whole number from 1 to 1000000", name))
				return
			}
			*dst = n
		}
	}
	res, err := s.searcher.Search(c.Request.Context(), scopeOf(c).WithThread(c.Param("id")), q, opt)
	if err != nil {
		s.fail(c, err)
		return
	}
	out := toSearchJSON(res.Query, res.Keywords, res.Hits)
	out["related"] = res.Related
	out["chars"] = res.Chars
	out["took_ms"] = float64(res.Took.Microseconds()) / 1000
	c.JSON(http.StatusOK, out)
}

func validQuery(q string) error {
	switch {
	case q == "":
		return yakor.Errorf(yakor.EINVALID, "q is empty: say what to search for, e.g. ?q=price list")
	case !utf8.ValidString(q) || strings.ContainsRune(q, 0):
		return yakor.Errorf(yakor.EINVALID, "q must be UTF-8 text without NUL characters")
	case len([]rune(q)) > 1000:
		return yakor.Errorf(yakor.EINVALID, "q is longer than 1000 characters")
	}
	return nil
}
