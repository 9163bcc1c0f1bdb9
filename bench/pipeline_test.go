package bench

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestCPUSlots: a freed slot goes to a waiting index build before a COPY
// job that waited longer; a wait ends with its context; nil slots never
// wait.
func TestCPUSlots(t *testing.T) {
	ctx := context.Background()
	s := newCPUSlots(1)
	if err := s.acquire(ctx, slotWork); err != nil {
		t.Fatal(err)
	}
	got := make(chan int, 2)
	waitFor := func(prio int) {
		go func() {
			if err := s.acquire(ctx, prio); err == nil {
				got <- prio
			}
		}()
	}
	waitFor(slotWork)
	waitUntil(t, func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.waiting[slotWork]) == 1 })
	waitFor(slotFinish)
	waitUntil(t, func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.waiting[slotFinish]) == 1 })
	s.release()
	if p := <-got; p != slotFinish {
		t.Fatalf("first slot to priority %d, want the index build's", p)
	}
	s.release()
	if p := <-got; p != slotWork {
		t.Fatalf("second slot to priority %d", p)
	}
	cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := s.acquire(cctx, slotWork); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("acquire with every slot held: %v", err)
	}
	s.release()
	if s.free != 1 || len(s.waiting[slotWork]) != 0 {
		t.Fatalf("after the cancelled wait: %d free, %d waiting", s.free, len(s.waiting[slotWork]))
	}
	var none *cpuSlots
	if err := none.acquire(ctx, slotWork); err != nil {
		t.Fatal(err)
	}
	none.release()
}

func waitUntil(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}
