package web

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"yakor"
)

// listPage is a list request's page: ?limit= (default 50, at most 500)
// and ?cursor=, the opaque next_cursor of the page before.
type listPage struct {
	limit  int
	cursor pageCursor
}

// pageCursor is where a page starts: after the entry it names (by id, or
// by time and key for lists ordered by time).
type pageCursor struct {
	ID  int64     `json:"i,omitempty"`
	Key string    `json:"k,omitempty"`
	At  time.Time `json:"a,omitzero"`
}

// readPage reads a list request's limit and cursor.
func readPage(c *gin.Context) (listPage, error) {
	p := listPage{limit: yakor.DefaultPageLimit}
	if v := c.Query("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > yakor.MaxPageLimit {
			return p, yakor.Errorf(yakor.EINVALID, "limit must be a whole number from 1 to %d, not %q", yakor.MaxPageLimit, v)
		}
		p.limit = n
	}
	if v := c.Query("cursor"); v != "" {
		raw, err := base64.RawURLEncoding.DecodeString(v)
		if err != nil || json.Unmarshal(raw, &p.cursor) != nil || p.cursor.ID < 0 {
			return p, yakor.Errorf(yakor.EINVALID, "cursor is not one this server gave: send the next_cursor of the page before")
		}
	}
	return p, nil
}

// idPage is the page as a store's id-ordered page, one entry more than
// the limit, to learn whether another page follows.
func (p listPage) idPage() yakor.Page {
	return yakor.Page{Limit: p.limit + 1, Before: p.cursor.ID}
}

// paged cuts items, read with one more than the page's limit, to the
// limit, and returns the next page's cursor (nil when none follows).
func paged[T any](items []T, p listPage, at func(T) pageCursor) ([]T, *string) {
	if items == nil {
		items = []T{}
	}
	if len(items) <= p.limit {
		return items, nil
	}
	items = items[:p.limit]
	raw, _ := json.Marshal(at(items[len(items)-1]))
	next := base64.RawURLEncoding.EncodeToString(raw)
	return items, &next
}

// pageBody is a list's response: the list under name, and next_cursor.
func pageBody(name string, list any, next *string) gin.H {
	return gin.H{name: list, "next_cursor": next}
}
