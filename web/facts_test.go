package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"yakor/facts"
	"yakor/turn"
)

// waitFacts polls the caller's current facts until cond holds.
func (s *stack) waitFacts(tb testing.TB, cond func([]facts.Fact) bool) []facts.Fact {
	tb.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var out struct{ Facts []facts.Fact }
		if code := s.do(tb, "GET", "/api/v1/facts", "", &out); code != http.StatusOK {
			tb.Fatalf("facts: %d", code)
		}
		if cond(out.Facts) {
			return out.Facts
		}
		if time.Now().After(deadline) {
			tb.Fatalf("facts after a minute: %+v\njobs: %s", out.Facts, s.jobs(tb))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestFactsAndResets: facts come from the conversation and go into the
// prompt; a user lists, adds, edits and deletes them; a long thread is
// compacted; refresh and purge delete what they say.
func TestFactsAndResets(t *testing.T) {
	s := newStack(t, stackOptions{cfg: turn.Config{WindowChars: 1500}, compact: true})
	thread := s.mustThread(t)
	s.send(t, thread, "Hello! My name is Anna.")
	s.send(t, thread, "Our budget is 5000 EUR for the whole project.")
	s.send(t, thread, "We decided to use PostgreSQL 15.2 for storage.")
	got := s.waitFacts(t, func(fs []facts.Fact) bool { return len(fs) >= 3 })
	byText := func(sub string) facts.Fact {
		for _, f := range got {
			if strings.Contains(f.Text, sub) {
				return f
			}
		}
		t.Fatalf("no fact holds %q: %+v", sub, got)
		return facts.Fact{}
	}
	name, budget := byText("Anna"), byText("5000")
	if name.Scope != "user" || budget.Scope != "project" || len(name.SourceMessageIDs) != 1 {
		t.Fatalf("name %+v, budget %+v", name, budget)
	}
	var ctx struct {
		Layers []struct{ Name, Text string }
	}
	s.do(t, "GET", "/api/v1/threads/"+thread+"/context", "", &ctx)
	if ctx.Layers[1].Name != "facts" || !strings.Contains(ctx.Layers[1].Text, "Anna") || !strings.Contains(ctx.Layers[1].Text, "5000") {
		t.Fatalf("facts layer: %+v", ctx.Layers[1])
	}

	var edited facts.Fact
	if code := s.do(t, "PATCH", fmt.Sprintf("/api/v1/facts/%d", budget.ID), `{"text":"The project's budget is 6000 EUR."}`, &edited); code != http.StatusOK || edited.Text != "The project's budget is 6000 EUR." || edited.Source != "user" {
		t.Fatalf("edit: %d %+v", code, edited)
	}
	var added facts.Fact
	if code := s.do(t, "POST", "/api/v1/facts", `{"scope":"chat","kind":"blocker","text":"Waiting for the supplier's answer.","thread":"`+thread+`"}`, &added); code != http.StatusCreated || added.ThreadID != thread {
		t.Fatalf("add: %d %+v", code, added)
	}
	for _, tc := range []struct{ method, path, body string }{
		{"POST", "/api/v1/facts", `{"scope":"galaxy","text":"x"}`},
		{"POST", "/api/v1/facts", `{"scope":"user","kind":"rumour","text":"x"}`},
		{"POST", "/api/v1/facts", `{"scope":"user","text":"  "}`},
		{"POST", "/api/v1/facts", `{"scope":"chat","text":"no thread"}`},
		{"POST", "/api/v1/facts", `{"scope":"user","text":"` + strings.Repeat("x", 2001) + `"}`},
		{"PATCH", fmt.Sprintf("/api/v1/facts/%d", name.ID), `{"kind":"rumour"}`},
		{"GET", "/api/v1/facts?scope=galaxy", ""},
	} {
		var e struct{ Error string }
		if code := s.do(t, tc.method, tc.path, tc.body, &e); code != http.StatusBadRequest || e.Error == "" {
			t.Errorf("%s %s %.40s: %d %q, want 400", tc.method, tc.path, tc.body, code, e.Error)
		}
	}
	if code := s.do(t, "DELETE", fmt.Sprintf("/api/v1/facts/%d", name.ID), "", nil); code != http.StatusOK {
		t.Fatalf("delete: %d", code)
	}
	if code := s.do(t, "DELETE", fmt.Sprintf("/api/v1/facts/%d", name.ID), "", nil); code != http.StatusNotFound {
		t.Fatalf("delete again: %d", code)
	}

	// Long enough to overflow the window: the thread is compacted, and
	// every message is still listed.
	for i := range 8 {
		s.send(t, thread, fmt.Sprintf("Cabinet %d needs %d boards of oak at 3400 each. %s", i, i+2, strings.Repeat("More details. ", 10)))
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		s.do(t, "GET", "/api/v1/threads/"+thread+"/context", "", &ctx)
		if strings.Contains(ctx.Layers[3].Text, "[SUMMARY of messages") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no summary in the window:\n%s\njobs: %s", ctx.Layers[3].Text, s.jobs(t))
		}
		time.Sleep(50 * time.Millisecond)
	}
	var listed struct{ Messages []struct{ Kind string } }
	s.do(t, "GET", "/api/v1/threads/"+thread+"/messages", "", &listed)
	kinds := map[string]int{}
	for _, m := range listed.Messages {
		kinds[m.Kind]++
	}
	if kinds["message"] != 22 || kinds["summary"] < 1 {
		t.Fatalf("listed kinds %v, want all 22 messages and the summaries", kinds)
	}

	// Let the post-turn jobs finish: a compaction still running would write
	// a summary after the refresh.
	s.waitJobsIdle(t)
	s.do(t, "GET", "/api/v1/threads/"+thread+"/messages", "", &listed)
	kinds = map[string]int{}
	for _, m := range listed.Messages {
		kinds[m.Kind]++
	}
	var refreshed struct{ Deleted map[string]int }
	if code := s.do(t, "POST", "/api/v1/threads/"+thread+"/refresh", "", &refreshed); code != http.StatusOK ||
		refreshed.Deleted["summaries"] != kinds["summary"] || refreshed.Deleted["chat_facts"] < 1 {
		t.Fatalf("refresh: %d %+v", code, refreshed)
	}
	s.do(t, "GET", "/api/v1/threads/"+thread+"/context", "", &ctx)
	if strings.Contains(ctx.Layers[3].Text, "[SUMMARY") || strings.Contains(ctx.Layers[1].Text, "supplier") {
		t.Fatalf("refresh left the summary or the chat fact: %+v", ctx.Layers)
	}
	if code := s.do(t, "POST", "/api/v1/threads/00000000-0000-0000-0000-000000000000/refresh", "", nil); code != http.StatusNotFound {
		t.Fatalf("refresh of an unknown thread: %d", code)
	}

	var out struct{ Facts []facts.Fact }
	s.do(t, "GET", "/api/v1/facts?closed=true", "", &out)
	var purged struct{ Deleted map[string]int }
	if code := s.do(t, "DELETE", "/api/v1/users/me/memory", "", &purged); code != http.StatusOK || purged.Deleted["facts"] != len(out.Facts) || len(out.Facts) == 0 {
		t.Fatalf("purge: %d %+v (had %d facts)", code, purged, len(out.Facts))
	}
	s.do(t, "GET", "/api/v1/facts?closed=true", "", &out)
	if len(out.Facts) != 0 {
		t.Fatalf("facts after the purge: %+v", out.Facts)
	}
}

// TestFactIsolationHTTP: two users of one tenant and two projects: every
// fact endpoint and the prompt keep chat facts to their thread, project
// facts to their project and a user's facts to the user.
func TestFactIsolationHTTP(t *testing.T) {
	a := newStack(t, stackOptions{})
	ctx := context.Background()
	userB := a.scope
	userB.UserID = uuid.NewString()
	if _, err := a.pool.Exec(ctx, `INSERT INTO users (tenant_id, id, name) VALUES ($1, $2, 'b')`, userB.TenantID, userB.UserID); err != nil {
		t.Fatal(err)
	}
	b := newStack(t, stackOptions{share: a, scope: userB})

	thread := func(s *stack, project string) string {
		var th struct{ ID string }
		if code := s.do(t, "POST", "/api/v1/threads", `{"title":"t","project":"`+project+`"}`, &th); code != http.StatusCreated {
			t.Fatalf("thread: %d", code)
		}
		return th.ID
	}
	alpha, beta, bThread := thread(a, "alpha"), thread(a, "beta"), thread(b, "alpha")
	a.send(t, alpha, "The deadline is March 15 for the release.")
	a.send(t, alpha, "My name is Anna.")
	a.send(t, beta, "Our budget is 9000 EUR.")
	b.send(t, bThread, "My name is Boris.")
	mine := a.waitFacts(t, func(fs []facts.Fact) bool { return len(fs) >= 3 })
	b.waitFacts(t, func(fs []facts.Fact) bool { return len(fs) >= 1 })

	factsOf := func(s *stack, thread string) string {
		var c struct{ Layers []struct{ Name, Text string } }
		s.do(t, "GET", "/api/v1/threads/"+thread+"/context", "", &c)
		return c.Layers[1].Text
	}
	for _, tc := range []struct {
		s          *stack
		thread     string
		has, lacks []string
	}{
		{a, alpha, []string{"-03-15", "Anna"}, []string{"9000", "Boris"}}, // the deadline's date, its year by the clock
		{a, beta, []string{"9000", "Anna"}, []string{"-03-15", "Boris"}},
		{b, bThread, []string{"Boris"}, []string{"Anna", "-03-15", "9000"}},
	} {
		text := factsOf(tc.s, tc.thread)
		for _, h := range tc.has {
			if !strings.Contains(text, h) {
				t.Errorf("prompt of %s lacks %q:\n%s", tc.thread, h, text)
			}
		}
		for _, l := range tc.lacks {
			if strings.Contains(text, l) {
				t.Errorf("prompt of %s holds %q:\n%s", tc.thread, l, text)
			}
		}
	}
	var scoped struct{ Facts []facts.Fact }
	a.do(t, "GET", "/api/v1/facts?scope=project&thread="+beta, "", &scoped)
	if len(scoped.Facts) != 1 || !strings.Contains(scoped.Facts[0].Text, "9000") {
		t.Fatalf("project facts of beta: %+v", scoped.Facts)
	}
	var theirs struct{ Facts []facts.Fact }
	b.do(t, "GET", "/api/v1/facts?closed=true", "", &theirs)
	for _, f := range theirs.Facts {
		if strings.Contains(f.Text, "Anna") || strings.Contains(f.Text, "9000") || strings.Contains(f.Text, "-03-15") {
			t.Fatalf("user B lists user A's fact %+v", f)
		}
	}
	for _, f := range mine {
		id := fmt.Sprint(f.ID)
		if code := b.do(t, "PATCH", "/api/v1/facts/"+id, `{"text":"hijacked"}`, nil); code != http.StatusNotFound {
			t.Errorf("user B edits A's fact %s: %d", id, code)
		}
		if code := b.do(t, "DELETE", "/api/v1/facts/"+id, "", nil); code != http.StatusNotFound {
			t.Errorf("user B deletes A's fact %s: %d", id, code)
		}
	}
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/api/v1/facts?thread=" + alpha, ""},
		{"POST", "/api/v1/facts", `{"scope":"chat","text":"x","thread":"` + alpha + `"}`},
		{"POST", "/api/v1/threads/" + alpha + "/refresh", ""},
	} {
		if code := b.do(t, tc.method, tc.path, tc.body, nil); code != http.StatusNotFound {
			t.Errorf("user B %s %s: %d, want 404", tc.method, tc.path, code)
		}
	}
	// B's purge leaves A's facts alone.
	b.do(t, "DELETE", "/api/v1/users/me/memory", "", nil)
	var after struct{ Facts []facts.Fact }
	a.do(t, "GET", "/api/v1/facts", "", &after)
	if len(after.Facts) != len(mine) {
		t.Fatalf("user A's facts after B's purge: %d, want %d", len(after.Facts), len(mine))
	}
}

// waitJobsIdle waits until no post-turn job is waiting or running.
func (s *stack) waitJobsIdle(tb testing.TB) {
	tb.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var n int
		if err := s.pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE state IN ('available', 'running', 'retryable', 'scheduled', 'pending')`).Scan(&n); err != nil {
			tb.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("jobs still busy after a minute: %s", s.jobs(tb))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
