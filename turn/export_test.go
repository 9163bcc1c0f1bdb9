package turn

// KeptFailures is the number of failed turns e keeps whose failure is not
// recorded yet.
func KeptFailures(e *Engine) int {
	e.unrecorded.mu.Lock()
	defer e.unrecorded.mu.Unlock()
	return len(e.unrecorded.turns)
}
