package mnemos_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"

	"yakor"
	"yakor/account"
	"yakor/history"
	"yakor/history/historytest"
	"yakor/llm"
	"yakor/mnemos"
	"yakor/postgres/pgtest"
	"yakor/search"
)

type messagesFixture struct {
	pool  *pgxpool.Pool
	hist  *history.Store
	space *mnemos.Space
	index *mnemos.MessageIndex
}

func newMessagesFixture(t *testing.T) *messagesFixture {
	pool := pgtest.New(t)
	space := mnemos.NewSpace(pool, llm.NewOffline(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	return &messagesFixture{pool: pool, hist: history.NewStore(pool), space: space, index: mnemos.NewMessageIndex(pool, space)}
}

func (f *messagesFixture) tenant(t *testing.T) yakor.Scope {
	t.Helper()
	s, err := account.NewStore(f.pool).CreateTenantUser(context.Background(), "t")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// otherUser adds a second user to scope's tenant.
func (f *messagesFixture) otherUser(t *testing.T, scope yakor.Scope) yakor.Scope {
	t.Helper()
	scope.UserID = uuid.NewString()
	scope.ThreadID = ""
	if _, err := f.pool.Exec(context.Background(), `INSERT INTO users (tenant_id, id, name) VALUES ($1, $2, 'other')`, scope.TenantID, scope.UserID); err != nil {
		t.Fatal(err)
	}
	return scope
}

// thread makes a thread in scope holding the messages, oldest first.
func (f *messagesFixture) thread(t *testing.T, scope yakor.Scope, contents ...string) (yakor.Scope, []int64) {
	t.Helper()
	return historytest.Thread(t, f.pool, scope, contents...)
}

// embedded returns the ids of the thread's messages with an embedding, in
// any space.
func (f *messagesFixture) embedded(t *testing.T, scope yakor.Scope) []int64 {
	t.Helper()
	rows, err := f.pool.Query(context.Background(), `SELECT message_id FROM message_embeddings WHERE thread_id = $1 ORDER BY message_id`, scope.ThreadID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	ids := []int64{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

func (f *messagesFixture) embed(t *testing.T, scope yakor.Scope, upTo int64) int {
	t.Helper()
	n, err := f.index.EmbedThread(context.Background(), scope, upTo)
	if err != nil {
		t.Fatalf("embed thread: %v", err)
	}
	return n
}

func (f *messagesFixture) nearest(t *testing.T, scope yakor.Scope, query string, k int, beforeID int64) []search.Neighbour {
	t.Helper()
	ns, err := f.index.Nearest(context.Background(), scope, query, k, beforeID)
	if err != nil {
		t.Fatalf("nearest %q: %v", query, err)
	}
	return ns
}

func neighbourIDs(ns []search.Neighbour) []int64 {
	ids := []int64{}
	for _, n := range ns {
		ids = append(ids, n.MessageID)
	}
	return ids
}

// TestMessagesEmbedThread: one row per message, in batches, up to upTo,
// idempotent, and only in scope's thread.
func TestMessagesEmbedThread(t *testing.T) {
	ctx := context.Background()
	f := newMessagesFixture(t)
	a := f.tenant(t)
	scope, _ := f.thread(t, a)
	msgs := make([]history.NewMessage, 150)
	for i := range msgs {
		msgs[i] = history.NewMessage{Role: history.RoleUser, Content: fmt.Sprintf("message number %d about item %d", i, i%7)}
	}
	msgs[3] = history.NewMessage{Role: history.RoleTool, Kind: history.KindTool, Content: "tool output 42"}
	msgs[4].Content = "…!?" // no words: the zero vector, stored all the same
	if _, err := f.hist.Import(ctx, scope, msgs); err != nil {
		t.Fatal(err)
	}
	all, err := f.hist.Messages(ctx, scope, history.MessageFilter{})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(all))
	for i, m := range all {
		ids[i] = m.ID
	}
	// Planted beside it: another thread of the same user, a thread of
	// another user of the tenant, and one of another tenant.
	sibling, _ := f.thread(t, a, "sibling thread message")
	user2 := f.otherUser(t, a)
	otherUser, _ := f.thread(t, user2, "other user's message")
	b := f.tenant(t)
	otherTenant, _ := f.thread(t, b, "other tenant's message")

	// Another user of the tenant, or another tenant, naming the thread
	// embeds nothing; nor does a malformed thread id.
	for _, s := range []yakor.Scope{user2.WithThread(scope.ThreadID), b.WithThread(scope.ThreadID), a.WithThread("not-a-uuid")} {
		if n := f.embed(t, s, 0); n != 0 {
			t.Fatalf("%+v embedded %d messages", s, n)
		}
	}
	if got := f.embedded(t, scope); len(got) != 0 {
		t.Fatalf("foreign scopes embedded %v", got)
	}

	if n := f.embed(t, scope, ids[9]); n != 10 {
		t.Fatalf("up to the 10th message: stored %d", n)
	}
	if got := f.embedded(t, scope); !slices.Equal(got, ids[:10]) {
		t.Fatalf("up to the 10th message: embedded %v", got)
	}
	if n := f.embed(t, scope, 0); n != 140 {
		t.Fatalf("the rest: stored %d, want 140", n)
	}
	if got := f.embedded(t, scope); !slices.Equal(got, ids) {
		t.Fatalf("embedded %d messages, want all %d", len(got), len(ids))
	}
	if n := f.embed(t, scope, 0); n != 0 {
		t.Fatalf("second run stored %d", n)
	}
	var rows, spaces int
	if err := f.pool.QueryRow(ctx, `SELECT count(*), count(DISTINCT space_id) FROM message_embeddings WHERE thread_id = $1`, scope.ThreadID).Scan(&rows, &spaces); err != nil || rows != 150 || spaces != 1 {
		t.Fatalf("%d rows in %d spaces (%v), want 150 in 1", rows, spaces, err)
	}
	for _, s := range []yakor.Scope{sibling, otherUser, otherTenant} {
		if got := f.embedded(t, s); len(got) != 0 {
			t.Errorf("thread %s was embedded: %v", s.ThreadID, got)
		}
	}
	// The thread's own scope embeds the others when asked.
	if n := f.embed(t, sibling, 0); n != 1 {
		t.Fatalf("sibling: stored %d", n)
	}
}

// TestMessagesNearest: the message nearest in meaning comes first, the
// window is left out, and no other thread, user, tenant or space is ever
// read.
func TestMessagesNearest(t *testing.T) {
	ctx := context.Background()
	f := newMessagesFixture(t)
	a := f.tenant(t)
	scope, ids := f.thread(t, a,
		"I like hiking in the mountains on weekends",
		"the rent for the apartment is 900 euros a month",
		"my cat sleeps on the sofa all day",
		"we should book the train tickets early",
		"…",
	)
	// Nothing is embedded yet: nothing is found.
	if got := f.nearest(t, scope, "apartment rent price", 10, 0); len(got) != 0 {
		t.Fatalf("before embedding: %v", got)
	}
	sibling, sibIDs := f.thread(t, a, "apartment rent price apartment rent price")
	f.embed(t, scope, 0)
	f.embed(t, sibling, 0)

	got := f.nearest(t, scope, "apartment rent price", 10, 0)
	if len(got) != 4 || got[0].MessageID != ids[1] {
		t.Fatalf("apartment rent price: %+v, want %d first and the wordless message left out", got, ids[1])
	}
	for i, n := range got {
		if n.Similarity > 1.0001 || n.Similarity < -1.0001 || (i > 0 && n.Similarity > got[i-1].Similarity) {
			t.Fatalf("similarities out of range or order: %+v", got)
		}
	}
	if got[0].Similarity < search.DefaultMinSimilarity || got[1].Similarity >= got[0].Similarity {
		t.Fatalf("the rent message should stand out: %+v", got)
	}
	if got := f.nearest(t, scope, "apartment rent price", 2, 0); len(got) != 2 || got[0].MessageID != ids[1] {
		t.Fatalf("k = 2: %+v", got)
	}
	// The window: only messages older than beforeID.
	got = f.nearest(t, scope, "apartment rent price", 10, ids[1])
	if !slices.Equal(neighbourIDs(got), []int64{ids[0]}) {
		t.Fatalf("before %d: %+v", ids[1], got)
	}
	// No words, no k: nothing.
	for _, q := range []string{"", "  ?! …", "—"} {
		if got := f.nearest(t, scope, q, 10, 0); len(got) != 0 {
			t.Fatalf("query %q: %+v", q, got)
		}
	}
	if got := f.nearest(t, scope, "apartment", 0, 0); len(got) != 0 {
		t.Fatalf("k = 0: %+v", got)
	}
	// Another thread's messages are never found, even when nearer.
	if slices.Contains(neighbourIDs(f.nearest(t, scope, "apartment rent price apartment rent price", 10, 0)), sibIDs[0]) {
		t.Fatal("found the sibling thread's message")
	}
	if got := f.nearest(t, sibling, "apartment rent price", 10, 0); !slices.Equal(neighbourIDs(got), sibIDs) {
		t.Fatalf("sibling: %+v", got)
	}
	// Another user of the tenant, or another tenant, naming the thread
	// finds nothing.
	other := f.otherUser(t, a).WithThread(scope.ThreadID)
	b := f.tenant(t).WithThread(scope.ThreadID)
	for _, s := range []yakor.Scope{other, b, a.WithThread("not-a-uuid")} {
		if got := f.nearest(t, s, "apartment rent price", 10, 0); len(got) != 0 {
			t.Fatalf("%+v found %+v", s, got)
		}
	}

	// Vectors of another space are never compared, whatever their
	// dimension: a thread with only another model's vectors, identical to
	// the query's, finds nothing, and a thread with both finds its own.
	space, _, err := f.space.ID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, qvec, err := f.space.EmbedOne(ctx, "apartment rent price")
	if err != nil {
		t.Fatal(err)
	}
	plain, plainIDs := f.thread(t, a, "nothing about flats here", "apartment rent price")
	for _, sp := range []struct {
		model string
		dims  int
		vec   pgvector.Vector
	}{
		{"other-384", 384, qvec},
		{"other-3", 3, pgvector.NewVector([]float32{1, 0, 0})},
	} {
		var other int32
		if err := f.pool.QueryRow(ctx, `INSERT INTO embed_spaces (provider, model, dims) VALUES ('test', $1, $2) RETURNING id`, sp.model, sp.dims).Scan(&other); err != nil {
			t.Fatal(err)
		}
		if other == space {
			t.Fatal("the other space has our id")
		}
		for _, s := range []struct {
			scope yakor.Scope
			ids   []int64
		}{{plain, plainIDs}, {scope, ids}} {
			for _, id := range s.ids {
				if _, err := f.pool.Exec(ctx, `INSERT INTO message_embeddings (tenant_id, thread_id, message_id, space_id, embedding) VALUES ($1, $2, $3, $4, $5)`,
					s.scope.TenantID, s.scope.ThreadID, id, other, sp.vec); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if got := f.nearest(t, plain, "apartment rent price", 10, 0); len(got) != 0 {
		t.Fatalf("another space's vectors were compared: %+v", got)
	}
	got = f.nearest(t, scope, "apartment rent price", 10, 0)
	if len(got) != 4 || got[0].MessageID != ids[1] || got[0].Similarity > 0.999 {
		t.Fatalf("with another space's vectors beside: %+v", got)
	}
	// Once embedded in our space, the plain thread finds its own.
	f.embed(t, plain, 0)
	if got := f.nearest(t, plain, "apartment rent price", 10, 0); len(got) != 2 || got[0].MessageID != plainIDs[1] || got[0].Similarity < 0.999 {
		t.Fatalf("plain thread: %+v", got)
	}
}

// TestMessagesSemanticSearch: the index serves as history search's
// semantic leg.
func TestMessagesSemanticSearch(t *testing.T) {
	ctx := context.Background()
	f := newMessagesFixture(t)
	scope, ids := f.thread(t, f.tenant(t),
		"I like hiking in the mountains on weekends",
		"the apartment's monthly rental is 900 euros",
		"my cat sleeps on the sofa all day",
	)
	f.embed(t, scope, 0)
	searcher := search.NewSearcher(f.pool)
	res, err := searcher.WithSemantic(f.index).Search(ctx, scope, "apartment rent price", search.Options{NoNeighbours: true})
	if err != nil || res.SemanticErr != nil {
		t.Fatalf("search: %v, %v", err, res.SemanticErr)
	}
	if len(res.Hits) == 0 || res.Hits[0].MessageID != ids[1] || res.Semantic == 0 {
		t.Fatalf("hits: %+v (semantic %d)", res.Hits, res.Semantic)
	}
}
