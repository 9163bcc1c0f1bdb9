package bench

// The loading pipeline of yakor bench all. PostgreSQL 15 builds a GIN index
// on one core, and the words index of the biggest corpus is the run's
// longest step by far: its build (about 15 minutes for 10,000,000
// messages on this machine's cores) starts once that corpus's COPY ends.
// So the biggest corpus loads first, with every core; then, while its
// words index builds on one core, the other cores build its other
// indexes and load the smaller corpora and run the untimed sections. Every
// CPU-heavy step holds one of the run's slots, one a core, so that the
// longest step never shares its core.

import (
	"context"
	"runtime"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"
)

// cpuSlots lets at most n CPU-heavy steps run at once: a COPY stream's
// job, an index build, a vacuum, an untimed section. A waiting step of a
// corpus's finish (index build, vacuum) goes before a waiting COPY job or
// section; within a priority, first come first served. A nil *cpuSlots lets
// everything run.
type cpuSlots struct {
	mu      sync.Mutex
	free    int
	waiting [2][]chan struct{} // by priority, slotFinish first
}

// The priorities of cpuSlots.
const (
	slotFinish = 0 // index builds and vacuums: they finish a loaded corpus
	slotWork   = 1 // COPY jobs and untimed sections
)

// newCPUSlots is n slots (0: one per core).
func newCPUSlots(n int) *cpuSlots {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	return &cpuSlots{free: n}
}

// acquire waits for a slot; the caller releases it.
func (s *cpuSlots) acquire(ctx context.Context, prio int) error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	if s.free > 0 && len(s.waiting[slotFinish])+len(s.waiting[slotWork]) == 0 {
		s.free--
		s.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	s.waiting[prio] = append(s.waiting[prio], ch)
	s.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		if i := slices.Index(s.waiting[prio], ch); i >= 0 {
			s.waiting[prio] = slices.Delete(s.waiting[prio], i, i+1)
			s.mu.Unlock()
			return ctx.Err()
		}
		s.mu.Unlock()
		s.release() // handed a slot as the context ended
		return ctx.Err()
	}
}

// release hands the slot to the first waiter of the highest priority, or
// frees it.
func (s *cpuSlots) release() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for p := range s.waiting {
		if len(s.waiting[p]) > 0 {
			ch := s.waiting[p][0]
			s.waiting[p] = s.waiting[p][1:]
			close(ch)
			return
		}
	}
	s.free++
}

// loadPipeline overlaps the corpus loads of one run: loadCorpus writes a
// corpus's rows, then leaves its index builds, vacuum and completion mark
// to the pipeline and returns, so that the next corpus's COPY runs beside
// them; wait waits for every load to be complete.
type loadPipeline struct {
	slots  *cpuSlots
	ctx    context.Context
	g      *errgroup.Group
	once   sync.Once
	copied chan struct{} // closed when the first COPY ends (or none is left)
}

// newLoadPipeline is a pipeline whose steps stop when ctx ends.
func newLoadPipeline(ctx context.Context, slots *cpuSlots) *loadPipeline {
	g, gctx := errgroup.WithContext(ctx)
	return &loadPipeline{slots: slots, ctx: gctx, g: g, copied: make(chan struct{})}
}

// copyDone says the first COPY has ended: the untimed sections may start.
func (p *loadPipeline) copyDone() {
	if p != nil {
		p.once.Do(func() { close(p.copied) })
	}
}

// finish runs a loaded corpus's finishing steps beside the next load.
func (p *loadPipeline) finish(f func(ctx context.Context) error) {
	p.g.Go(func() error { return f(p.ctx) })
}

// wait waits for every corpus's finishing steps.
func (p *loadPipeline) wait() error {
	p.copyDone()
	return p.g.Wait()
}

// slotsOf is the pipeline's slots, nil without a pipeline.
func (p *loadPipeline) slotsOf() *cpuSlots {
	if p == nil {
		return nil
	}
	return p.slots
}
