package anchors

import (
	"context"
	"sync"
)

// threadLocks lets one anchoring at a time run per thread in this process,
// through its model calls, with no database transaction open: a sync turn
// and the job after the previous turn do not both ask the helper model
// about the same message. (Across processes the write's check keeps the
// rows right; the helper may then be asked twice.)
type threadLocks struct {
	mu   sync.Mutex
	held map[string]*threadLock
}

type threadLock struct {
	ch      chan struct{} // holds a token while the lock is taken
	waiters int           // callers holding or waiting for it
}

// lock waits for key's lock, or for ctx to end, and returns its release.
func (l *threadLocks) lock(ctx context.Context, key string) (func(), error) {
	l.mu.Lock()
	if l.held == nil {
		l.held = map[string]*threadLock{}
	}
	t := l.held[key]
	if t == nil {
		t = &threadLock{ch: make(chan struct{}, 1)}
		l.held[key] = t
	}
	t.waiters++
	l.mu.Unlock()
	leave := func() {
		l.mu.Lock()
		if t.waiters--; t.waiters == 0 {
			delete(l.held, key)
		}
		l.mu.Unlock()
	}
	select {
	case t.ch <- struct{}{}:
		return func() { <-t.ch; leave() }, nil
	case <-ctx.Done():
		leave()
		return nil, ctx.Err()
	}
}
