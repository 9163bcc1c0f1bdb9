package turn

import (
	"context"
	"slices"
	"sync"
	"time"

	"yakor"
)

// maxUnrecorded bounds the failed turns kept for recording; past it the
// oldest is dropped (and stays running until a resend abandons it).
const maxUnrecorded = 1000

// unrecorded are failed turns whose failure the database did not take (it
// was away, or could not write), by turn id. Only the engine that ran a
// turn knows its writer gave up, so it is the one that records it: at once
// when the same message is sent again to it (replay), and otherwise in the
// background with backoff until the database takes it. One goroutine
// records them, never the requests: after an outage hundreds of sends
// each recording the same hundreds of turns queued on their row locks for
// half a minute (yakor bench load --restart-postgres).
type unrecorded struct {
	mu        sync.Mutex
	turns     map[string]unrecordedTurn
	recording bool // the background recorder runs
}

type unrecordedTurn struct {
	scope yakor.Scope
	tr    Trace
	at    time.Time
}

// add keeps the turn and reports whether the background recorder is to be
// started (it was not running).
func (u *unrecorded) add(scope yakor.Scope, tr Trace, at time.Time) (dropped string, start bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.turns == nil {
		u.turns = map[string]unrecordedTurn{}
	}
	if _, ok := u.turns[tr.ID]; !ok && len(u.turns) >= maxUnrecorded {
		oldest := u.sortedLocked()[0].tr.ID
		delete(u.turns, oldest)
		dropped = oldest
	}
	u.turns[tr.ID] = unrecordedTurn{scope: scope, tr: tr, at: at}
	start = !u.recording
	u.recording = true
	return dropped, start
}

func (u *unrecorded) get(id string) (unrecordedTurn, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	k, ok := u.turns[id]
	return k, ok
}

// remove forgets the turn if it is still the one kept at at.
func (u *unrecorded) remove(k unrecordedTurn) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if cur, ok := u.turns[k.tr.ID]; ok && cur.at.Equal(k.at) {
		delete(u.turns, k.tr.ID)
	}
}

// list returns the kept turns, the oldest first.
func (u *unrecorded) list() []unrecordedTurn {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.sortedLocked()
}

func (u *unrecorded) sortedLocked() []unrecordedTurn {
	out := make([]unrecordedTurn, 0, len(u.turns))
	for _, k := range u.turns {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b unrecordedTurn) int { return a.at.Compare(b.at) })
	return out
}

// stop ends the background recorder when nothing is kept, and reports
// whether it did.
func (u *unrecorded) stop() bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.turns) > 0 {
		return false
	}
	u.recording = false
	return true
}

// keep keeps the failed turn tr for recording, starting the background
// recorder if it is not running.
func (e *Engine) keep(scope yakor.Scope, tr Trace) {
	dropped, start := e.unrecorded.add(scope, tr, time.Now())
	if dropped != "" {
		e.log.Warn("too many failed turns not recorded; the oldest stays running until its message is sent again", "turn", dropped)
	}
	if start {
		go e.recordInBackground()
	}
}

// recordInBackground records the kept turns, backing off from 100 ms to
// 5 s while the database refuses them, until none is left. A turn kept
// longer than StaleTurnAfter is let go: a resend abandons it by then.
func (e *Engine) recordInBackground() {
	wait := 100 * time.Millisecond
	for {
		time.Sleep(wait)
		if e.recordUnrecorded(context.Background()) {
			wait = 100 * time.Millisecond
		} else {
			wait = min(2*wait, 5*time.Second)
		}
		for _, k := range e.unrecorded.list() {
			if time.Since(k.at) > e.cfg.StaleTurnAfter {
				e.unrecorded.remove(k)
			}
		}
		if e.unrecorded.stop() {
			return
		}
	}
}

// recordUnrecorded records the kept failed turns, stopping at the first
// the database still refuses; it reports whether all were recorded. Only
// recordInBackground calls it.
func (e *Engine) recordUnrecorded(ctx context.Context) bool {
	for _, k := range e.unrecorded.list() {
		rctx, cancel := context.WithTimeout(k.scope.Context(context.WithoutCancel(ctx)), 5*time.Second)
		_, err := finish(rctx, e.pool, k.scope, k.tr)
		cancel()
		if err != nil {
			return false
		}
		e.unrecorded.remove(k)
		e.log.InfoContext(ctx, "recorded a failed turn the database had refused", "turn", k.tr.ID)
	}
	return true
}
