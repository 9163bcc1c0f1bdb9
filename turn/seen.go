package turn

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"yakor"
	"yakor/postgres"
)

// Seen is what turn id of scope's user showed its model: the user message
// it answered and the messages of its window and of its searches' hits.
// ENOTFOUND when the user has no such turn. The grader reads it to judge a
// reply against what its model saw.
func (e *Engine) Seen(ctx context.Context, scope yakor.Scope, id string) (question int64, seen []int64, err error) {
	return e.shown(ctx, scope, id, LayerWindow, LayerFound)
}

// Found is what turn id of scope's user found by searching the history:
// the messages of its search hits (none when it did not search), the hits
// its reply may have used. ENOTFOUND when the user has no such turn.
func (e *Engine) Found(ctx context.Context, scope yakor.Scope, id string) ([]int64, error) {
	_, found, err := e.shown(ctx, scope, id, LayerFound)
	return found, err
}

// shown is the user message turn id answered and the messages of its
// layers named.
func (e *Engine) shown(ctx context.Context, scope yakor.Scope, id string, names ...string) (question int64, ids []int64, err error) {
	if _, err := uuid.Parse(id); err != nil {
		return 0, nil, yakor.Errorf(yakor.ENOTFOUND, "turn %q not found", id)
	}
	var layers []byte
	err = e.pool.QueryRow(ctx, `SELECT user_message_id, layers FROM turns WHERE tenant_id = $1 AND user_id = $2 AND id = $3`,
		scope.TenantID, scope.UserID, id).Scan(&question, &layers)
	if err != nil {
		return 0, nil, postgres.NotFound("find turn", err, yakor.Errorf(yakor.ENOTFOUND, "turn %q not found", id))
	}
	var ls []Layer
	if err := json.Unmarshal(layers, &ls); err != nil {
		return 0, nil, fmt.Errorf("find turn: layers: %w", err)
	}
	for _, l := range ls {
		if slices.Contains(names, l.Name) {
			ids = append(ids, l.MessageIDs...)
		}
	}
	return question, ids, nil
}
