package yakor

// The bounds of a page of a list.
const (
	DefaultPageLimit = 50
	MaxPageLimit     = 500
)

// Page is one page of a list ordered by id, newest first: at most Limit
// entries (0: DefaultPageLimit; at most MaxPageLimit and one, which a
// caller asks for to learn whether another page follows) with ids below
// Before (0: from the newest).
type Page struct {
	Limit  int
	Before int64
}

// Size is the page's limit within its bounds.
func (p Page) Size() int {
	switch {
	case p.Limit <= 0:
		return DefaultPageLimit
	case p.Limit > MaxPageLimit+1:
		return MaxPageLimit + 1
	}
	return p.Limit
}
