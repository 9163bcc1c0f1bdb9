package search_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"yakor"
	"yakor/account"
	"yakor/history"
	"yakor/history/historytest"
	"yakor/llm"
	"yakor/postgres"
	"yakor/postgres/pgtest"
	"yakor/search"
)

type fixture struct {
	pool     *pgxpool.Pool
	hist     *history.Store
	searcher *search.Searcher
	accounts *account.Store
}

func newFixture(tb testing.TB, pool *pgxpool.Pool) *fixture {
	return &fixture{pool: pool, hist: history.NewStore(pool), searcher: search.NewSearcher(pool), accounts: account.NewStore(pool)}
}

func (f *fixture) tenant(tb testing.TB) yakor.Scope {
	tb.Helper()
	s, err := f.accounts.CreateTenantUser(context.Background(), "t")
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// thread makes a thread in scope holding the messages, oldest first, and
// returns its scope and the messages' ids.
func (f *fixture) thread(tb testing.TB, scope yakor.Scope, contents ...string) (yakor.Scope, []int64) {
	tb.Helper()
	return historytest.Thread(tb, f.pool, scope, contents...)
}

func (f *fixture) search(tb testing.TB, scope yakor.Scope, q string, opt search.Options) []int64 {
	tb.Helper()
	res, err := f.searcher.Search(context.Background(), scope, q, opt)
	if err != nil {
		tb.Fatalf("search %q: %v", q, err)
	}
	ids := []int64{}
	for _, h := range res.Hits {
		if !h.Neighbour {
			ids = append(ids, h.MessageID)
		}
	}
	return ids
}

// TestFoldOnCLocale: on a database created with the C locale, whose
// lower() leaves Cyrillic alone, лдсп still finds ЛДСП and прайс finds прайса.
func TestFoldOnCLocale(t *testing.T) {
	pool := pgtest.NewWithLocale(t, "C")
	var lowered string
	if err := pool.QueryRow(context.Background(), `SELECT lower('ЛДСП')`).Scan(&lowered); err != nil || lowered != "ЛДСП" {
		t.Fatalf("the database is not a C-locale one: lower('ЛДСП') = %q, %v", lowered, err)
	}
	f := newFixture(t, pool)
	scope, ids := f.thread(t, f.tenant(t),
		"Прайс: ЛДСП 16 мм — 3400 руб за лист",
		"Понял. Что ещё?",
		"Цена доставки по прайсу — 900 руб",
		"Ёлка на складе ЁЛКИ",
		"Совсем про другое: погода",
	)
	foldCases(t, f, scope, ids)
}

func foldCases(t *testing.T, f *fixture, scope yakor.Scope, ids []int64) {
	for _, tc := range []struct {
		q    string
		want []int64
	}{
		{"лдсп", []int64{ids[0]}},
		{"ЛДСП", []int64{ids[0]}},
		{"прайс", []int64{ids[2], ids[0]}},
		{"прайса", []int64{ids[2], ids[0]}},
		{"елки", []int64{ids[3]}},
		{"ЁЛКА", []int64{ids[3]}},
	} {
		got := f.search(t, scope, tc.q, search.Options{NoNeighbours: true})
		slices.Sort(got)
		want := slices.Clone(tc.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%q found %v, want %v", tc.q, got, want)
		}
	}
}

// TestWordStarts: a keyword matches words starting with its stem, split
// where Yakor splits words (punctuation, quotes, hyphens, underscores, a
// no-break space), not
// the middle of another word: цена finds «Цены» but not "лицензия", board
// finds "board" but not "keyboard".
func TestWordStarts(t *testing.T) {
	f := newFixture(t, pgtest.New(t))
	scope, ids := f.thread(t, f.tenant(t),
		"Лицензия продлена до мая",
		"Цена за лист — 3400₽",
		"«Цены» выросли: ЛДСП-16 и price_list.csv",
		"keyboard on the desk",
		"board 3400р, e-mail: sales@example.com",
		"Доставка: 1\u00a0250 руб",
	)
	for _, tc := range []struct {
		q    string
		want []int64
	}{
		{"цена", []int64{ids[1], ids[2]}},
		{"board", []int64{ids[4]}},
		{"16", []int64{ids[2]}},
		{"list", []int64{ids[2]}},
		{"sales", []int64{ids[4]}},
		{"3400", []int64{ids[1], ids[4]}},
		{"250", []int64{ids[5]}},
	} {
		got := f.search(t, scope, tc.q, search.Options{NoNeighbours: true})
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q found %v, want %v", tc.q, got, tc.want)
		}
	}
}

// TestHostileQueries: wildcards and SQL in a query are words or nothing;
// they never match more, and never reach another thread, user or tenant.
func TestHostileQueries(t *testing.T) {
	f := newFixture(t, pgtest.New(t))
	a := f.tenant(t)
	b := f.tenant(t)
	scope, ids := f.thread(t, a, "plain words about apples", "100% sure: the price is 5_000", `back\slash and 'quotes' OR 1=1`)
	// Planted elsewhere: another thread of the same user, another tenant.
	f.thread(t, a, "apples OR 1=1 secret of another thread %")
	f.thread(t, b, "apples OR 1=1 secret of another tenant _%_")
	other, err := f.accounts.CreateTenantUser(context.Background(), "same tenant, other user")
	if err != nil {
		t.Fatal(err)
	}
	f.thread(t, other, "apples secret of another user")
	hostileCases(t, f, scope, ids)
	// Another tenant naming a's thread finds nothing and learns nothing.
	if _, err := f.searcher.Search(context.Background(), b.WithThread(scope.ThreadID), "apples", search.Options{}); yakor.ErrorCode(err) != yakor.ENOTFOUND {
		t.Fatalf("tenant b searching a's thread: %v", err)
	}
	if _, err := f.searcher.Search(context.Background(), a.WithThread("not-a-uuid"), "apples", search.Options{}); yakor.ErrorCode(err) != yakor.ENOTFOUND {
		t.Fatalf("malformed thread id: %v", err)
	}
}

func hostileCases(t *testing.T, f *fixture, scope yakor.Scope, ids []int64) {
	for _, tc := range []struct {
		q    string
		want []int64
	}{
		{`%' OR 1=1 --`, []int64{}},
		{`_%_`, []int64{}},
		{`%`, []int64{}},
		{`\`, []int64{}},
		{`apples%`, []int64{ids[0]}},
		{`'; DROP TABLE messages; --`, []int64{}},
		{`quotes' OR '1'='1`, []int64{ids[2]}},
		{`5_000`, []int64{}}, // "5" and "000"? "000" is kept as a number: it is in message 2
	} {
		got := f.search(t, scope, tc.q, search.Options{NoNeighbours: true})
		if tc.q == `5_000` {
			tc.want = []int64{ids[1]}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q found %v, want %v", tc.q, got, tc.want)
		}
	}
	var n int
	if err := f.pool.QueryRow(context.Background(), `SELECT count(*) FROM messages`).Scan(&n); err != nil || n != 6 {
		t.Fatalf("messages table: %d rows, %v", n, err)
	}
}

// TestRanking: rare words outweigh common ones, the budget is filled in
// rank order, short hits bring the message before them, and BeforeID
// leaves out the window.
func TestRanking(t *testing.T) {
	f := newFixture(t, pgtest.New(t))
	var contents []string
	for i := range 40 {
		contents = append(contents, fmt.Sprintf("we talked about the order again, day %d", i))
	}
	contents = append(contents,
		"Which board do you mean?",                         // 40
		"The walnut veneer board, order 7731",              // 41
		"What was the delivery date for the order?",        // 42
		"Yes, Tuesday.",                                    // 43: short, needs 42
		"Another message about the order and nothing else", // 44
	)
	scope, ids := f.thread(t, f.tenant(t), contents...)
	rankingCases(t, f, scope, ids)
}

func rankingCases(t *testing.T, f *fixture, scope yakor.Scope, ids []int64) {
	got := f.search(t, scope, "walnut order", search.Options{Limit: 3, NoNeighbours: true})
	if len(got) == 0 || got[0] != ids[41] {
		t.Fatalf("walnut order: %v, want %d first (the rare word)", got, ids[41])
	}

	res, err := f.searcher.Search(context.Background(), scope, "Tuesday", search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The short hit brings the question it answers; the budget left brings
	// the message after it too, last.
	if len(res.Hits) != 3 || !res.Hits[0].Neighbour || res.Hits[0].MessageID != ids[42] || res.Hits[1].MessageID != ids[43] ||
		!res.Hits[2].Neighbour || res.Hits[2].MessageID != ids[44] {
		t.Fatalf("Tuesday: %+v", res.Hits)
	}
	// The messages around the hits take only what budget is left.
	tight := utf8.RuneCountInString(res.Hits[0].Content + res.Hits[1].Content)
	if got, err := f.searcher.Search(context.Background(), scope, "Tuesday", search.Options{Budget: tight}); err != nil || len(got.Hits) != 2 || got.Chars > tight {
		t.Fatalf("Tuesday within %d characters: %+v, %v", tight, got.Hits, err)
	}
	if res.Hits[1].CreatedAt.IsZero() || res.Hits[1].Role != "assistant" {
		t.Fatalf("hit lacks its date or author: %+v", res.Hits[1])
	}

	// A question brings its answer.
	// A (short) question brings the message before it and its answer; the
	// limit counts them all.
	res, err = f.searcher.Search(context.Background(), scope, "delivery date", search.Options{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 3 || res.Hits[1].MessageID != ids[42] || res.Hits[1].Neighbour ||
		res.Hits[2].MessageID != ids[43] || !res.Hits[2].Neighbour || !res.Hits[0].Neighbour {
		t.Fatalf("delivery date: %+v", res.Hits)
	}
	res, err = f.searcher.Search(context.Background(), scope, "delivery date", search.Options{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 2 || res.Hits[0].MessageID != ids[42] || res.Hits[1].MessageID != ids[43] {
		t.Fatalf("delivery date, limit 2: the answer should win the one free place: %+v", res.Hits)
	}

	res, err = f.searcher.Search(context.Background(), scope, "order", search.Options{Budget: 120, NoNeighbours: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Chars > 120 || len(res.Hits) < 2 {
		t.Fatalf("budget 120: %d chars in %d hits", res.Chars, len(res.Hits))
	}
	sum := 0
	for _, h := range res.Hits {
		sum += len([]rune(h.Content))
	}
	if sum != res.Chars {
		t.Fatalf("chars %d, hits hold %d", res.Chars, sum)
	}

	got = f.search(t, scope, "walnut", search.Options{BeforeID: ids[41]})
	if len(got) != 0 {
		t.Fatalf("BeforeID: found %v in the window", got)
	}
	if got := f.search(t, scope, "the what which", search.Options{}); len(got) != 0 {
		t.Fatalf("stop words found %v", got)
	}
}

// TestIndexUsedAt100k: with 100,000 messages in a thread (and others
// beside it), both legs are served by their thread-keyed GIN indexes.
func TestIndexUsedAt100k(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, pgtest.New(t))
	scope := f.tenant(t)
	words := strings.Fields("order board panel price delivery invoice walnut oak sheet meter цена прайс доставка лист плита заказ")
	small, _ := f.thread(t, scope, "walnut elsewhere")
	big, _ := f.thread(t, scope)
	msgs := make([]history.NewMessage, 100_000)
	for i := range msgs {
		msgs[i] = history.NewMessage{Role: history.RoleUser, Content: fmt.Sprintf("%s %s %d", words[i%len(words)], words[(i*7)%len(words)], i)}
	}
	start := time.Now()
	if _, err := f.hist.Import(ctx, big, msgs); err != nil {
		t.Fatal(err)
	}
	t.Logf("imported 100,000 messages in %v", time.Since(start))
	if _, err := f.pool.Exec(ctx, `ANALYZE messages`); err != nil {
		t.Fatal(err)
	}
	// The keyword leg as the service runs it, under row-level security: it
	// reads the words index, never the table whole.
	plans := pgtest.ExplainNested(t, f.pool, big.TenantID, func(conn *pgx.Conn) error {
		rows, err := conn.Query(ctx, search.KeywordLegSQL, big.TenantID, big.UserID, big.ThreadID, []string{"walnut", "99999"}, int64(0), 2000, "walnut or 99999")
		if err != nil {
			return err
		}
		n := 0
		for rows.Next() {
			n++
		}
		if n == 0 {
			t.Error("the keyword leg found nothing under row-level security")
		}
		return rows.Err()
	})
	if !strings.Contains(plans, "messages_words") || strings.Contains(plans, "Seq Scan on messages") {
		t.Errorf("the keyword leg does not read messages_words alone under row-level security:\n%s", plans)
	}
	got := f.search(t, big, "99999", search.Options{NoNeighbours: true})
	if len(got) != 1 {
		t.Fatalf("99999: %v", got)
	}
	// walnut is in one message in 8, common: its hits come from the
	// thread's newest messages, and a rare word beside it still leads. (Its
	// related words left out: past the sample's walnut messages, the
	// limit's rest would go to oak.)
	res, err := f.searcher.Search(ctx, big, "walnut", search.Options{NoNeighbours: true, NoRelated: true})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("walnut: %v, %v", res.Hits, err)
	}
	for _, h := range res.Hits {
		if !strings.Contains(h.Content, "walnut") {
			t.Errorf("walnut found %q", h.Content)
		}
	}
	res, err = f.searcher.Search(ctx, big, "walnut 12345", search.Options{NoNeighbours: true})
	if err != nil || len(res.Hits) == 0 || !strings.HasSuffix(res.Hits[0].Content, " 12345") {
		t.Fatalf("walnut 12345: %v, %v", res.Hits, err)
	}
	if got := f.search(t, small, "walnut", search.Options{}); len(got) != 1 {
		t.Fatalf("small thread: %v", got)
	}
}

// TestSearchSkipsOfflineReplies: the offline model's replies quote the
// conversation back; a search finds what they quote, once, and gives its
// budget to the messages around it rather than to them.
func TestSearchSkipsOfflineReplies(t *testing.T) {
	f := newFixture(t, pgtest.New(t))
	reply, err := llm.NewOffline().Complete(context.Background(), llm.Request{Messages: []llm.Message{
		{Role: "user", Content: "The walnut worktop costs 18750."}, {Role: "user", Content: "What does the walnut worktop cost?"},
	}})
	if err != nil || !llm.IsOfflineReply(reply.Text) {
		t.Fatalf("the offline reply %q, %v", reply.Text, err)
	}
	scope, ids := f.thread(t, f.tenant(t), "The walnut worktop costs 18750.", reply.Text, "What does the walnut worktop cost?", reply.Text)
	res, err := f.searcher.Search(context.Background(), scope, "walnut worktop", search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.MessageID == ids[1] || h.MessageID == ids[3] {
			t.Errorf("a search found the offline model's reply: %+v", h)
		}
	}
	if len(res.Hits) != 2 || res.Hits[0].MessageID != ids[0] && res.Hits[1].MessageID != ids[0] {
		t.Errorf("hits %+v, want the two user messages", res.Hits)
	}
}

// TestKeywordLegNamesItsTenant: the service role reads the words index
// (through its owner's function) only for the tenant its transaction
// names: with none named, or another named, it learns nothing, not even
// which ids hold a word.
func TestKeywordLegNamesItsTenant(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, pgtest.New(t))
	scope, _ := f.thread(t, f.tenant(t), "The walnut worktop costs 18750.")
	other := f.tenant(t)
	conn, err := f.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	count := func(tenant string) int {
		t.Helper()
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback(ctx) }()
		if _, err := tx.Exec(ctx, `SET LOCAL ROLE `+postgres.ServiceRole); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, `SELECT set_config('`+postgres.TenantSetting+`', $1, true)`, tenant); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM (`+search.KeywordLegSQL+`) m`, scope.TenantID, scope.UserID, scope.ThreadID, []string{"walnut"}, int64(0), 10, "walnut").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(scope.TenantID); n != 1 {
		t.Fatalf("the thread's own tenant finds %d, want 1", n)
	}
	if n := count(""); n != 0 {
		t.Errorf("no tenant named finds %d, want 0", n)
	}
	if n := count(other.TenantID); n != 0 {
		t.Errorf("another tenant named finds %d, want 0", n)
	}
	// The owner, whom row-level security does not hold, may ask unnamed.
	if got := f.search(t, scope, "walnut", search.Options{}); len(got) != 1 {
		t.Errorf("the owner's search: %v", got)
	}
}
