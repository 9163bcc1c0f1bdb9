// Package yakor holds the domain types that every part of Yakor shares: the
// scope a request acts in and the error codes the HTTP layer maps to statuses.
// It imports nothing of the project; the adapters (postgres, web, llm) and the
// domain packages (history, turn, anchors…) import it.
package yakor

// Scope names whose data an operation may read or write. Every query is keyed
// by TenantID, and by UserID where the data belongs to one user; ThreadID and
// ProjectID narrow it further where set.
type Scope struct {
	TenantID  string
	UserID    string
	ProjectID string
	ThreadID  string
}

// ThreadParam returns ThreadID for a uuid query parameter: ThreadID when it
// has a UUID's shape, else the nil UUID, which names no thread, so that a
// malformed id finds nothing instead of failing the query.
func (s Scope) ThreadParam() string {
	if len(s.ThreadID) != 36 {
		return "00000000-0000-0000-0000-000000000000"
	}
	return s.ThreadID
}

// WithThread returns a copy of s narrowed to the thread id.
func (s Scope) WithThread(id string) Scope {
	s.ThreadID = id
	return s
}
