// Package keylock lets one caller at a time hold a key within a process,
// with no database session held: for work on one thread that goes through
// model calls (a helper asked about the thread's messages), so that two
// workers of the process do not ask twice about the same messages.
package keylock

import (
	"context"
	"sync"
)

// Locks lets one caller at a time hold each key. The zero value is ready.
// (Across processes it holds nothing: there the writes' own checks keep
// the rows right, and a helper may be asked twice.)
type Locks struct {
	mu   sync.Mutex
	held map[string]*lock
}

type lock struct {
	ch      chan struct{} // holds a token while the lock is taken
	waiters int           // callers holding or waiting for it
}

// Lock waits for key's lock, or for ctx to end, and returns its release.
func (l *Locks) Lock(ctx context.Context, key string) (func(), error) {
	l.mu.Lock()
	if l.held == nil {
		l.held = map[string]*lock{}
	}
	t := l.held[key]
	if t == nil {
		t = &lock{ch: make(chan struct{}, 1)}
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
