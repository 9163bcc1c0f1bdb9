package history

import "testing"

// TestFirstExchange: the lead keeps the thread's first exchange whole, and
// only when the summary covers both of its messages.
func TestFirstExchange(t *testing.T) {
	q, a := Message{ID: 1, Role: RoleUser}, Message{ID: 2, Role: RoleAssistant}
	for _, c := range []struct {
		head    []Message
		through int64
		want    int
	}{
		{[]Message{q, a}, 2, 2},
		{[]Message{q, a}, 1, 0}, // the summary covers the question alone
		{[]Message{q}, 5, 0},
		{[]Message{a, q}, 5, 0},
	} {
		if got := len(firstExchange(c.head, c.through)); got != c.want {
			t.Errorf("firstExchange(%v, %d): %d messages, want %d", c.head, c.through, got, c.want)
		}
	}
}
