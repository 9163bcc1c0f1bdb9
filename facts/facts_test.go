package facts_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"yakor"
	"yakor/account"
	"yakor/facts"
	"yakor/history"
	"yakor/postgres/pgtest"
)

// fixture is a test database with its history.
type fixture struct {
	pool *pgxpool.Pool
	hist *history.Store
}

func newFixture(t *testing.T) *fixture {
	pool := pgtest.New(t)
	return &fixture{pool: pool, hist: history.NewStore(pool)}
}

// tenant makes a tenant with one user.
func (f *fixture) tenant(t *testing.T) yakor.Scope {
	t.Helper()
	s, err := account.NewStore(f.pool).CreateTenantUser(context.Background(), "t")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// otherUser adds a second user to scope's tenant.
func (f *fixture) otherUser(t *testing.T, scope yakor.Scope) yakor.Scope {
	t.Helper()
	scope.UserID, scope.ThreadID = uuid.NewString(), ""
	if _, err := f.pool.Exec(context.Background(), `INSERT INTO users (tenant_id, id, name) VALUES ($1, $2, 'other')`, scope.TenantID, scope.UserID); err != nil {
		t.Fatal(err)
	}
	return scope
}

// thread makes an empty thread in scope.
func (f *fixture) thread(t *testing.T, scope yakor.Scope) yakor.Scope {
	t.Helper()
	th, err := f.hist.CreateThread(context.Background(), scope, history.ThreadCreate{})
	if err != nil {
		t.Fatal(err)
	}
	return scope.WithThread(th.ID)
}

// say appends user messages to scope's thread and extracts their facts.
func say(t *testing.T, f *fixture, store *facts.Store, scope yakor.Scope, texts ...string) {
	t.Helper()
	ctx := context.Background()
	for _, text := range texts {
		if _, _, err := f.hist.Append(ctx, scope, history.NewMessage{Role: history.RoleUser, Content: text}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := store.Extract(ctx, scope, 0); err != nil {
		t.Fatal(err)
	}
}

func current(t *testing.T, store *facts.Store, scope yakor.Scope) []facts.Fact {
	t.Helper()
	fs, err := store.List(context.Background(), scope, facts.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// TestFactSupersession: "I work on backend" then "I moved to frontend"
// leaves one current fact; the old one is closed, superseded, with its
// provenance; saying it again merges.
func TestFactSupersession(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	store := facts.NewStore(f.pool, facts.Config{}, pgtest.Logger(t))
	scope := f.thread(t, f.tenant(t))
	say(t, f, store, scope, "Hi! I work on backend, mostly Go services.")
	say(t, f, store, scope, "Quick update: I moved to frontend last week.", "I moved to frontend, yes.")

	var team []facts.Fact
	for _, fa := range current(t, store, scope) {
		if fa.Slot == "user.team" {
			team = append(team, fa)
		}
	}
	if len(team) != 1 || !strings.Contains(strings.ToLower(team[0].Value), "frontend") || len(team[0].SourceMessageIDs) != 2 {
		t.Fatalf("current team facts: %+v", team)
	}
	all, err := store.List(ctx, scope, facts.Filter{Closed: true})
	if err != nil {
		t.Fatal(err)
	}
	var old *facts.Fact
	for i := range all {
		if all[i].Slot == "user.team" && all[i].ValidTo != nil {
			old = &all[i]
		}
	}
	if old == nil || old.SupersededBy != team[0].ID || old.ClosedReason != "superseded" || !strings.Contains(strings.ToLower(old.Value), "backend") || len(old.SourceMessageIDs) != 1 {
		t.Fatalf("the old fact: %+v", old)
	}
	// The prompt sees the current one only.
	block, ids, err := store.Block(ctx, scope, "en")
	if err != nil || !strings.Contains(block, "frontend") || strings.Contains(block, "backend") || len(ids) == 0 {
		t.Fatalf("facts block %q %v %v", block, ids, err)
	}
}

// TestFactForgetAndCaps: "forget that…" closes the matching fact; over a
// cap the least recently used go first and corrections and blockers last.
func TestFactForgetAndCaps(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	store := facts.NewStore(f.pool, facts.Config{Caps: facts.Caps{User: 3}}, pgtest.Logger(t))
	scope := f.thread(t, f.tenant(t))
	say(t, f, store, scope, "Our budget is 5000 EUR for the whole project.")
	if fs := current(t, store, scope); len(fs) != 1 || fs[0].Slot != "project.budget" {
		t.Fatalf("budget fact: %+v", fs)
	}
	say(t, f, store, scope, "Forget that our budget is 5000 EUR.")
	if fs := current(t, store, scope); len(fs) != 0 {
		t.Fatalf("after forget: %+v", fs)
	}
	closed, _ := store.List(ctx, scope, facts.Filter{Closed: true})
	if len(closed) != 1 || closed[0].ClosedReason != "forgotten" {
		t.Fatalf("closed: %+v", closed)
	}

	// Four user facts with a cap of three: a correction written first
	// outlives the facts used least recently.
	add := func(kind, text string) facts.Fact {
		fa, err := store.Add(ctx, scope, facts.Input{Scope: facts.ScopeUser, Kind: kind, Text: text})
		if err != nil {
			t.Fatal(err)
		}
		return fa
	}
	corr := add(facts.KindCorrection, "The user's surname is spelled Ivanova, not Ivanov.")
	a := add(facts.KindFact, "The user lives in Kazan.")
	b := add(facts.KindFact, "The user has two cats.")
	if err := store.MarkUsed(ctx, scope, []int64{a.ID}); err != nil { // b is now the least recently used
		t.Fatal(err)
	}
	c := add(facts.KindPreference, "The user prefers short answers.")
	got := map[int64]bool{}
	for _, fa := range current(t, store, scope) {
		got[fa.ID] = true
	}
	if !got[corr.ID] || !got[a.ID] || !got[c.ID] || got[b.ID] || len(got) != 3 {
		t.Fatalf("after the cap: %v (correction %d, used %d, new %d, evicted %d)", got, corr.ID, a.ID, c.ID, b.ID)
	}
}

// TestFactIsolation: two users, two projects: chat facts stay in their
// thread, project facts in their project, a user's facts with the user,
// in listings, in edits and in the prompt.
func TestFactIsolation(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	store := facts.NewStore(f.pool, facts.Config{}, pgtest.Logger(t))
	u1 := f.tenant(t)
	u2 := f.otherUser(t, u1)
	projects := map[string]string{}
	for _, name := range []string{"alpha", "beta"} {
		th, err := f.hist.CreateThread(ctx, u1, history.ThreadCreate{Title: name, ProjectID: mustProject(t, f, u1, name)})
		if err != nil {
			t.Fatal(err)
		}
		projects[name] = th.ID
	}
	alpha, beta := u1.WithThread(projects["alpha"]), u1.WithThread(projects["beta"])
	say(t, f, store, alpha, "The deadline is March 15 for the alpha release.", "My name is Anna.")
	say(t, f, store, beta, "We decided to use Redis for the queue.")
	other := f.thread(t, u2)
	say(t, f, store, other, "My name is Boris.")

	blockAlpha, _, _ := store.Block(ctx, alpha, "en")
	blockBeta, _, _ := store.Block(ctx, beta, "en")
	blockOther, _, _ := store.Block(ctx, other, "en")
	for _, tc := range []struct {
		block, has, lacks string
	}{
		{blockAlpha, "-03-15", "Redis"}, {blockAlpha, "Anna", "Boris"}, // the deadline's date, its year by the clock
		{blockBeta, "Redis", "-03-15"}, {blockBeta, "Anna", "Boris"},
		{blockOther, "Boris", "Anna"}, {blockOther, "Boris", "-03-15"}, {blockOther, "Boris", "Redis"},
	} {
		if !strings.Contains(tc.block, tc.has) || strings.Contains(tc.block, tc.lacks) {
			t.Errorf("block has %q, lacks %q:\n%s", tc.has, tc.lacks, tc.block)
		}
	}
	mine := current(t, store, u1)
	theirs := current(t, store, u2)
	for _, fa := range theirs {
		if strings.Contains(fa.Text, "Anna") || strings.Contains(fa.Text, "Redis") {
			t.Fatalf("another user lists %+v", fa)
		}
		if _, err := store.Update(ctx, u1, fa.ID, facts.Update{}); yakor.ErrorCode(err) != yakor.ENOTFOUND {
			t.Fatalf("editing another user's fact: %v", err)
		}
		if err := store.Delete(ctx, u1, fa.ID); yakor.ErrorCode(err) != yakor.ENOTFOUND {
			t.Fatalf("deleting another user's fact: %v", err)
		}
	}
	if len(mine) < 3 || len(theirs) != 1 {
		t.Fatalf("mine %+v theirs %+v", mine, theirs)
	}
	if _, err := store.List(ctx, u2, facts.Filter{ThreadID: projects["alpha"]}); yakor.ErrorCode(err) != yakor.ENOTFOUND {
		t.Fatalf("another user listing by my thread: %v", err)
	}
	if _, err := store.Add(ctx, u2, facts.Input{Scope: facts.ScopeChat, Text: "x", ThreadID: projects["alpha"]}); yakor.ErrorCode(err) != yakor.ENOTFOUND {
		t.Fatalf("another user adding to my thread: %v", err)
	}
}

func mustProject(t *testing.T, f *fixture, scope yakor.Scope, name string) string {
	t.Helper()
	var id string
	err := f.pool.QueryRow(context.Background(), `INSERT INTO projects (tenant_id, id, name) VALUES ($1, gen_random_uuid(), $2) RETURNING id::text`, scope.TenantID, name).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestMarkUsedNeverWaits: marking facts used skips a fact another
// transaction holds (an extraction updating it) rather than waiting for it:
// waiting deadlocked turns against extractions under load.
func TestMarkUsedNeverWaits(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	store := facts.NewStore(f.pool, facts.Config{}, pgtest.Logger(t))
	scope := f.thread(t, f.tenant(t))
	var ids []int64
	for _, text := range []string{"The user lives in Kazan.", "The user has two cats."} {
		fa, err := store.Add(ctx, scope, facts.Input{Scope: facts.ScopeUser, Kind: facts.KindFact, Text: text})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, fa.ID)
	}
	tx, err := f.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	if _, err := tx.Exec(ctx, `UPDATE facts SET confidence = confidence WHERE tenant_id = $1 AND id = $2`, scope.TenantID, ids[0]); err != nil {
		t.Fatal(err)
	}
	mctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := store.MarkUsed(mctx, scope, ids); err != nil {
		t.Fatalf("mark used with a fact locked: %v", err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	used := map[int64]int{}
	rows, _ := f.pool.Query(ctx, `SELECT id, used FROM facts WHERE tenant_id = $1`, scope.TenantID)
	for rows.Next() {
		var id int64
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			t.Fatal(err)
		}
		used[id] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if used[ids[0]] != 0 || used[ids[1]] != 1 {
		t.Fatalf("used counts %v: want the locked fact %d skipped and %d marked", used, ids[0], ids[1])
	}
}

// TestDeleteThreadAndUser: DeleteThread deletes the thread's chat facts
// only; DeleteUser every fact of the user, closed ones too, and no other
// user's.
func TestDeleteThreadAndUser(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	store := facts.NewStore(f.pool, facts.Config{}, pgtest.Logger(t))
	u1 := f.tenant(t)
	one, two := f.thread(t, u1), f.thread(t, u1)
	other := f.thread(t, f.otherUser(t, u1))
	for _, in := range []struct {
		scope yakor.Scope
		fact  facts.Input
	}{
		{one, facts.Input{Scope: facts.ScopeChat, Text: "Chat one.", ThreadID: one.ThreadID}},
		{one, facts.Input{Scope: facts.ScopeChat, Text: "Chat one again.", ThreadID: one.ThreadID}},
		{two, facts.Input{Scope: facts.ScopeChat, Text: "Chat two.", ThreadID: two.ThreadID}},
		{one, facts.Input{Scope: facts.ScopeUser, Text: "The user's fact."}},
		{other, facts.Input{Scope: facts.ScopeUser, Text: "Another user's fact."}},
	} {
		if _, err := store.Add(ctx, in.scope, in.fact); err != nil {
			t.Fatal(err)
		}
	}
	say(t, f, store, one, "Our budget is 5000 EUR.", "Forget that our budget is 5000 EUR.") // a closed fact
	if n, err := store.DeleteThread(ctx, one); err != nil || n != 2 {
		t.Fatalf("delete thread one: %d, %v; want its 2 chat facts", n, err)
	}
	if fs := current(t, store, u1); len(fs) != 2 {
		t.Fatalf("after deleting thread one: %+v, want chat two's and the user's", fs)
	}
	if n, err := store.DeleteUser(ctx, u1); err != nil || n != 3 {
		t.Fatalf("delete user: %d, %v; want 3 (one closed)", n, err)
	}
	if fs := current(t, store, other); len(fs) != 1 {
		t.Fatalf("the other user's facts: %+v", fs)
	}
}

// TestFactDeadlineDate: a deadline named relative to its message ("завтра")
// is stored as the date it means from the message's time, read by Extract
// and by ExtractRead (the turn's reading, here leaving the message to the
// offline extractor).
func TestFactDeadlineDate(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	store := facts.NewStore(f.pool, facts.Config{}, pgtest.Logger(t))
	user := f.tenant(t)
	for i, extract := range []func(yakor.Scope) error{
		func(s yakor.Scope) error { _, err := store.Extract(ctx, s, 0); return err },
		func(s yakor.Scope) error { _, err := store.ExtractRead(ctx, s, 0, nil); return err },
	} {
		scope := f.thread(t, user)
		m, _, err := f.hist.Append(ctx, scope, history.NewMessage{Role: history.RoleUser, Content: "Дедлайн завтра, без вариантов."})
		if err != nil {
			t.Fatal(err)
		}
		if err := extract(scope); err != nil {
			t.Fatal(err)
		}
		want := m.CreatedAt.UTC().AddDate(0, 0, 1).Format(time.DateOnly)
		var got []string
		for _, fa := range current(t, store, scope) {
			if fa.Slot == "project.deadline" {
				got = append(got, fa.Value)
			}
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("extractor %d: deadline values %q, want [%s] (the message said on %s)", i, got, want, m.CreatedAt)
		}
		if _, err := f.pool.Exec(ctx, `DELETE FROM facts WHERE tenant_id = $1`, user.TenantID); err != nil {
			t.Fatal(err)
		}
	}
}
