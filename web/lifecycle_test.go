package web_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"yakor/turn"
)

// userRows counts, in every table of the schema with a user_id or a
// thread_id column (found in the catalog, so a new table is counted too),
// the rows of a user: by user_id, or by thread_id among threads.
func userRows(t *testing.T, s *stack, user string, threads []string) map[string]int {
	t.Helper()
	ctx := context.Background()
	rows, err := s.pool.Query(ctx, `SELECT c.table_name, bool_or(c.column_name = 'user_id'), bool_or(c.column_name = 'thread_id')
FROM information_schema.columns c JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.column_name IN ('user_id', 'thread_id')
GROUP BY c.table_name ORDER BY c.table_name`)
	if err != nil {
		t.Fatal(err)
	}
	type table struct {
		name           string
		byUser, byThre bool
	}
	var tables []table
	for rows.Next() {
		var tb table
		if err := rows.Scan(&tb.name, &tb.byUser, &tb.byThre); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, tb)
	}
	if rows.Err() != nil || len(tables) < 10 {
		t.Fatalf("%d tables with user_id or thread_id: %v", len(tables), rows.Err())
	}
	out := map[string]int{}
	for _, tb := range tables {
		var cond []string
		if tb.byUser {
			cond = append(cond, "user_id::text = $1")
		}
		if tb.byThre {
			cond = append(cond, "thread_id::text = ANY($2)")
		}
		var n int
		q := fmt.Sprintf(`SELECT count(*) FROM %s WHERE ($1 <> '' OR $2::text[] IS NOT NULL) AND (%s)`, tb.name, strings.Join(cond, " OR "))
		if err := s.pool.QueryRow(ctx, q, user, threads).Scan(&n); err != nil {
			t.Fatalf("count %s: %v", tb.name, err)
		}
		out[tb.name] = n
	}
	return out
}

// lifeUser is one end user's conversation in the lifecycle test: two
// threads with a name, a price list, feedback both ways and enough text to
// be compacted.
type lifeUser struct {
	name, id string
	threads  []string
	replies  []int64
}

func (u *lifeUser) talk(t *testing.T, s *stack) {
	t.Helper()
	for range 2 {
		var th struct{ ID string }
		if code := s.doAs(t, u.name, "POST", "/api/v1/threads", `{"title":"shop"}`, &th); code != http.StatusCreated {
			t.Fatalf("%s: thread: %d", u.name, code)
		}
		u.threads = append(u.threads, th.ID)
		for _, text := range []string{
			"Hello! My name is " + u.name + ". I'm vegan.",
			"Price list: oak board 9000 EUR, pine panel 1250 EUR.",
			"What does the oak board cost? " + strings.Repeat("Some more words about boards. ", 20),
			"And the pine panel? " + strings.Repeat("Even more words about panels. ", 20),
		} {
			var r struct{ Reply struct{ ID int64 } }
			if code := s.doAs(t, u.name, "POST", "/api/v1/threads/"+th.ID+"/messages", jsonBody(map[string]string{"content": text}), &r); code != http.StatusOK {
				t.Fatalf("%s: send: %d", u.name, code)
			}
			u.replies = append(u.replies, r.Reply.ID)
		}
	}
	for i, thumb := range []string{"up", "down"} {
		if code := s.doAs(t, u.name, "POST", fmt.Sprintf("/api/v1/messages/%d/feedback", u.replies[i+1]), `{"thumb":"`+thumb+`"}`, nil); code != http.StatusOK {
			t.Fatalf("%s: feedback: %d", u.name, code)
		}
	}
	// The offline model's replies teach nothing (their thumbs are kept as
	// grades only): the user's own note and research topic are their
	// long-term memory.
	for path, body := range map[string]string{
		"/api/v1/experiences":     `{"level":2,"topic":"oak boards","title":"Oak board prices","note":"` + u.name + ` buys oak boards at 9000 EUR."}`,
		"/api/v1/research/topics": `{"topic":"oak board suppliers for ` + u.name + `"}`,
	} {
		if code := s.doAs(t, u.name, "POST", path, body, nil); code != http.StatusCreated {
			t.Fatalf("%s: POST %s: %d", u.name, path, code)
		}
	}
	var me struct{ Threads []struct{ ID string } }
	s.doAs(t, u.name, "GET", "/api/v1/threads", "", &me)
	if err := s.pool.QueryRow(context.Background(), `SELECT user_id::text FROM threads WHERE id = $1`, u.threads[0]).Scan(&u.id); err != nil {
		t.Fatal(err)
	}
}

// TestLifecycle is boundary 5: a user's export holds what the API lists of
// them; DELETE /api/v1/users/me leaves no row of theirs in any table with a
// user_id or thread_id column, and another user's rows as they were.
func TestLifecycle(t *testing.T) {
	s := newStack(t, stackOptions{compact: true, cfg: turn.Config{AnchorMode: turn.AnchorSync, WindowChars: 1200}})
	ann, bob := &lifeUser{name: "ann"}, &lifeUser{name: "bob"}
	ann.talk(t, s)
	bob.talk(t, s)
	deadline := time.Now().Add(time.Minute)
	for {
		rows := userRows(t, s, ann.id, ann.threads)
		if rows["facts"] > 0 && rows["experiences"] > 0 && rows["microgoals"] > 0 && rows["research_topics"] > 0 && rows["compactions"] > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ann's data never grew whole: %v (jobs: %s)", rows, s.jobs(t))
		}
		time.Sleep(100 * time.Millisecond)
	}
	settled(t, s, ann)
	checkExport(t, s, ann)
	before := settled(t, s, bob)

	var del struct{ Deleted map[string]int }
	if code := s.doAs(t, "ann", "DELETE", "/api/v1/users/me", "", &del); code != http.StatusOK || del.Deleted["threads"] != 2 {
		t.Fatalf("delete ann: %d %+v", code, del)
	}
	for table, n := range userRows(t, s, ann.id, ann.threads) {
		if n != 0 {
			t.Errorf("%s holds %d of ann's rows after her deletion", table, n)
		}
	}
	for table, n := range userRows(t, s, bob.id, bob.threads) {
		if n != before[table] {
			t.Errorf("%s: bob's rows %d -> %d", table, before[table], n)
		}
	}
	if code := s.doAs(t, "bob", "GET", "/api/v1/users/"+ann.id+"/export", "", nil); code != http.StatusNotFound {
		t.Errorf("exporting the deleted user: %d, want 404", code)
	}

	// A thread: its rows go, the user's other thread stays.
	settled(t, s, bob)
	keep := userRows(t, s, "", bob.threads[1:])
	if code := s.doAs(t, "bob", "DELETE", "/api/v1/threads/"+bob.threads[0], "", nil); code != http.StatusOK {
		t.Fatalf("delete thread: %d", code)
	}
	for table, n := range userRows(t, s, "", bob.threads[:1]) {
		if n != 0 {
			t.Errorf("%s holds %d rows of the deleted thread", table, n)
		}
	}
	for table, n := range userRows(t, s, "", bob.threads[1:]) {
		if n != keep[table] {
			t.Errorf("%s: the other thread's rows %d -> %d", table, keep[table], n)
		}
	}
	if code := s.doAs(t, "bob", "DELETE", "/api/v1/threads/"+bob.threads[0], "", nil); code != http.StatusNotFound {
		t.Errorf("delete the thread again: %d, want 404", code)
	}
	deleteMessage(t, s, bob.threads[1])
}

// deleteMessage deletes a thread's price list: it leaves the messages, the
// search, the window and the facts, and the summary that covered it goes.
func deleteMessage(t *testing.T, s *stack, thread string) {
	t.Helper()
	var l struct {
		Messages []struct {
			ID      int64
			Kind    string
			Content string
		}
	}
	s.doAs(t, "bob", "GET", "/api/v1/threads/"+thread+"/messages", "", &l)
	var price int64
	for _, m := range l.Messages {
		if strings.HasPrefix(m.Content, "Price list") {
			price = m.ID
		}
	}
	if price == 0 {
		t.Fatalf("no price list in %+v", l.Messages)
	}
	var summaries int
	s.pool.QueryRow(context.Background(), `SELECT count(*) FROM compactions WHERE thread_id = $1`, thread).Scan(&summaries) //nolint:errcheck
	var del struct{ Deleted map[string]int }
	if code := s.doAs(t, "bob", "DELETE", fmt.Sprintf("/api/v1/messages/%d", price), "", &del); code != http.StatusOK || del.Deleted["messages"] < 1 {
		t.Fatalf("delete message: %d %+v", code, del)
	}
	if code := s.doAs(t, "ann", "DELETE", fmt.Sprintf("/api/v1/messages/%d", price), "", nil); code != http.StatusNotFound {
		t.Errorf("delete it again as another user: %d, want 404", code)
	}
	s.doAs(t, "bob", "GET", "/api/v1/threads/"+thread+"/messages", "", &l)
	for _, m := range l.Messages {
		if m.ID == price || m.Kind == "summary" && summaries > 0 {
			t.Errorf("after the delete the thread lists %+v", m)
		}
	}
	var hits struct {
		Hits []struct {
			MessageID int64 `json:"message_id"`
		}
	}
	s.doAs(t, "bob", "GET", "/api/v1/threads/"+thread+"/search?q=price+list+pine+panel", "", &hits)
	for _, h := range hits.Hits {
		if h.MessageID == price {
			t.Errorf("search still finds the deleted message")
		}
	}
	var ctx struct {
		Layers []struct {
			Name       string
			MessageIDs []int64 `json:"message_ids"`
		}
	}
	s.doAs(t, "bob", "GET", "/api/v1/threads/"+thread+"/context", "", &ctx)
	for _, l := range ctx.Layers {
		for _, id := range l.MessageIDs {
			if id == price {
				t.Errorf("the %s layer still holds the deleted message", l.Name)
			}
		}
	}
	var n int
	if err := s.pool.QueryRow(context.Background(), `SELECT count(*) FROM facts WHERE $1 = ANY(source_message_ids)`, price).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d facts still cite the deleted message (%v)", n, err)
	}
}

// settled waits until the post-turn jobs are done with u's rows: the same
// counts for a second.
func settled(t *testing.T, s *stack, u *lifeUser) map[string]int {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	last, same := userRows(t, s, u.id, u.threads), 0
	for same < 4 {
		if time.Now().After(deadline) {
			t.Fatalf("%s's rows never settled: %v (jobs: %s)", u.name, last, s.jobs(t))
		}
		time.Sleep(250 * time.Millisecond)
		now := userRows(t, s, u.id, u.threads)
		if maps.Equal(now, last) {
			same++
		} else {
			last, same = now, 0
		}
	}
	return last
}

// checkExport compares u's export with what the API lists of u.
func checkExport(t *testing.T, s *stack, u *lifeUser) {
	t.Helper()
	var ex struct {
		User    struct{ ID string }
		Threads []struct {
			ID       string
			Messages []struct {
				ID      int64
				Content string
			}
		}
		Facts       []struct{ ID int64 }
		Anchors     []struct{ ID int64 }
		Experiences []struct{ ID int64 }
		Grades      []struct{ Source string }
	}
	if code := s.doAs(t, u.name, "GET", "/api/v1/users/me/export", "", &ex); code != http.StatusOK || ex.User.ID != u.id || len(ex.Threads) != len(u.threads) {
		t.Fatalf("export of %s: %d user %q, %d threads", u.name, code, ex.User.ID, len(ex.Threads))
	}
	for _, th := range ex.Threads {
		var l struct{ Messages []struct{ ID int64 } }
		s.doAs(t, u.name, "GET", "/api/v1/threads/"+th.ID+"/messages", "", &l)
		if len(l.Messages) != len(th.Messages) {
			t.Errorf("thread %s: export %d messages, API %d", th.ID, len(th.Messages), len(l.Messages))
		}
	}
	var facts struct{ Facts []struct{ ID int64 } }
	s.doAs(t, u.name, "GET", "/api/v1/facts?closed=true", "", &facts)
	var exps struct {
		Experiences []struct {
			ID         int64
			Visibility string
		}
	}
	s.doAs(t, u.name, "GET", "/api/v1/experiences", "", &exps)
	own := 0
	for _, x := range exps.Experiences {
		if x.Visibility == "private" {
			own++
		}
	}
	anchors := 0
	for _, th := range u.threads {
		var a struct{ Anchors []struct{ ID int64 } }
		s.doAs(t, u.name, "GET", "/api/v1/threads/"+th+"/anchors", "", &a)
		anchors += len(a.Anchors)
	}
	if len(ex.Facts) != len(facts.Facts) || len(ex.Experiences) != own || len(ex.Anchors) < anchors || anchors == 0 || len(ex.Grades) == 0 {
		t.Errorf("export: %d facts, %d experiences, %d anchors, %d grades; API: %d facts, %d experiences, %d anchors",
			len(ex.Facts), len(ex.Experiences), len(ex.Anchors), len(ex.Grades), len(facts.Facts), own, anchors)
	}
}
