package history

// ThreadReads are the statements that read a few of one thread's messages
// in id order, for a test to EXPLAIN them: each with its arguments but the
// tenant, user and thread ($1, $2, $3).
var ThreadReads = map[string]struct {
	SQL  string
	Args []any
}{
	"window":           {windowSQL, []any{int64(0), 128, int64(0), 20000}},
	"window head":      {headSQL, nil},
	"neighbour after":  {neighbourAfterSQL, []any{int64(1), RoleAssistant}},
	"neighbour before": {neighbourBeforeSQL, []any{int64(1 << 40), RoleUser}},
	"last tool calls":  {lastToolCallsSQL, []any{toolCallsReach}},
	"link before":      {linkBeforeSQL, nil},
}
