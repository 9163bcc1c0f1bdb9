package turn_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"yakor/app"
	"yakor/app/apptest"
	"yakor/history"
	"yakor/postgres/pgtest"
	"yakor/turn"
)

// trips counts the round trips a pool's connections make while on: a
// statement sent alone is one, and so is a batch.
type trips struct {
	on atomic.Bool
	n  atomic.Int64
}

func (c *trips) count() {
	if c.on.Load() {
		c.n.Add(1)
	}
}

// measure returns the round trips fn made.
func (c *trips) measure(fn func()) int64 {
	c.n.Store(0)
	c.on.Store(true)
	fn()
	c.on.Store(false)
	return c.n.Load()
}

func (c *trips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.count()
	return ctx
}
func (c *trips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (c *trips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.count()
	return ctx
}
func (c *trips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (c *trips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// TestTurnRoundTrips: the prompt's parts (the window, the anchors block and
// the facts) are read in one round trip, and a turn with every layer on
// costs 11: the thread; the message stored (begin, the message with its
// tenant, the turn, commit); the parts; the reply stored (begin, the reply
// with its tenant, the turn's end, commit); the facts marked used. (The
// memory's sizes are known; with the job queue on, its insert and notice
// join the reply's transaction.)
func TestTurnRoundTrips(t *testing.T) {
	c := &trips{}
	owner, svc := pgtest.NewTracedService(t, c)
	s := apptest.Start(t, apptest.Config(), app.WithDatabase(&app.Database{Owner: owner, Tenant: svc}), app.WithInlineJobs())
	ctx := s.Local.Context(t.Context())
	th, err := s.History.CreateThread(ctx, s.Local, history.ThreadCreate{Title: "prices"})
	if err != nil {
		t.Fatal(err)
	}
	scope := s.Local.WithThread(th.ID)
	for _, text := range []string{
		"My name is Anna and I run a furniture workshop.",
		"Price list: oak board 3400, birch board 2100, pine board 1250.",
		"We use PostgreSQL 15 for the orders; our budget is 48,000 EUR.",
	} {
		if _, err := s.Engine.Send(ctx, scope, turn.Input{Content: text}, func(turn.Event) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if err := s.Inline.RunPending(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	var p turn.Prompt
	n := c.measure(func() { p, err = s.Engine.Context(ctx, scope) })
	if err != nil {
		t.Fatal(err)
	}
	layers := map[string]turn.Layer{}
	for _, l := range p.Layers {
		layers[l.Name] = l
	}
	if layers[turn.LayerWindow].Items != 6 || layers[turn.LayerAnchors].Items == 0 || layers[turn.LayerFacts].Items == 0 {
		t.Fatalf("the prompt's layers: window %d, anchors %d, facts %d items; want 6 messages, anchors and facts",
			layers[turn.LayerWindow].Items, layers[turn.LayerAnchors].Items, layers[turn.LayerFacts].Items)
	}
	if n != 2 {
		t.Errorf("the next turn's prompt took %d round trips, want 2 (the thread, then its parts in one)", n)
	}
	n = c.measure(func() {
		_, err = s.Engine.Send(ctx, scope, turn.Input{Content: "What does an oak board cost?"}, func(turn.Event) error { return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a turn: %d round trips", n)
	if n > 11 {
		t.Errorf("a turn took %d round trips, want at most 11", n)
	}
}
