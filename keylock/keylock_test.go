package keylock

import (
	"context"
	"testing"
	"time"
)

// TestLocks: a key's lock is held by one caller at a time, a
// waiter gives up when its context ends, other keys do not wait, and a
// lock no one holds or waits for is forgotten.
func TestLocks(t *testing.T) {
	var l Locks
	ctx := context.Background()
	unlock, err := l.Lock(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := l.Lock(short, "a"); err == nil {
		t.Fatal("a second caller took a held lock")
	}
	other, cancelOther := context.WithTimeout(ctx, 5*time.Second)
	defer cancelOther()
	unlockB, err := l.Lock(other, "b")
	if err != nil {
		t.Fatalf("another key waited: %v", err)
	}
	unlockB()
	got := make(chan struct{})
	go func() {
		u, err := l.Lock(ctx, "a")
		if err == nil {
			u()
		}
		close(got)
	}()
	unlock()
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter did not get the released lock")
	}
	if len(l.held) != 0 {
		t.Fatalf("%d locks kept", len(l.held))
	}
}
