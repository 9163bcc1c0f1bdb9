package main

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"yakor/postgres/pgtest"
)

// TestBrowserThumbOverGrade: a reply the grader graded shows its grade
// beside the thumbs until the user gives a thumb; from then on, and after a
// reload, the reply shows the user's thumb alone, while the inspector still
// lists the grader's grade under the user's. The chat model is the canned
// one, whose replies the offline grader grades (the offline model's are
// not graded).
func TestBrowserThumbOverGrade(t *testing.T) {
	model := newCannedModel(t)
	url, _ := pgtest.NewURL(t)
	s := startServer(t, pgtest.DataDir(t), "--database-url", url, "--openai-base-url", model.URL+"/v1", "--chat-model", "canned-1",
		"--helper-provider", "offline", "--embed-provider", "offline", "--research-schedule", "off", "--log-level", "warn")
	p := openTab(t, startChromium(t), "http://"+s.addr, 1280, 800, false)
	p.navigate("/")
	p.visible(tid("empty-state"))
	liked := p.send("Price list: oak board 3400, birch panel 1250.", true)
	disliked := p.send("What does the oak board cost?", true)
	thread := eval[string](p, `location.pathname.split('/').pop()`)
	for _, id := range []string{liked, disliked} {
		waitGraded(t, s, thread, id)
	}

	// Graded and not yet judged: the grader's grade beside the thumbs.
	badge := func(id string) string { return "#m-" + id + " " + tid("grade-badge") }
	p.navigate("/t/" + thread)
	for _, id := range []string{liked, disliked} {
		p.waitJS("the grade of reply "+id, fmt.Sprintf(`!!document.querySelector('%s')`, badge(id)), uiWait)
	}

	// A thumb down: the reply shows it, and not the grade, at once and
	// after a reload.
	down := "#m-" + disliked + " " + tid("thumb-down")
	p.click(down)
	p.waitJS("the thumb stored", fmt.Sprintf(`(b => b.getAttribute('aria-pressed') === 'true' && b.getAttribute('aria-busy') === 'false')(document.querySelector('%s'))`, down), uiWait)
	if p.count(badge(disliked)) != 0 {
		p.fail("reply %s shows the grader's %q beside the user's thumb down", disliked, p.text(badge(disliked)))
	}
	p.navigate("/t/" + thread)
	p.waitJS("the thumb down after a reload", fmt.Sprintf(`(b => !!b && b.getAttribute('aria-pressed') === 'true')(document.querySelector('%s'))`, down), uiWait)
	p.waitJS("the other reply's grade", fmt.Sprintf(`!!document.querySelector('%s')`, badge(liked)), uiWait)
	if p.count(badge(disliked)) != 0 {
		p.fail("after a reload reply %s shows the grader's %q beside the user's thumb down", disliked, p.text(badge(disliked)))
	}

	// The inspector keeps both, the user's first.
	p.click("#m-" + disliked + " " + tid("why-button"))
	p.waitJS("both grades in the inspector", `document.querySelectorAll('[data-testid=inspector] [data-testid=grade]').length === 2`, uiWait)
	sources := eval[[]string](p, `[...document.querySelectorAll('[data-testid=inspector] [data-testid=grade]')].map((e) => e.dataset.source)`)
	if len(sources) != 2 || sources[0] != "user" || sources[1] == "user" {
		p.fail("the inspector lists the grades by %v, want the user's first, then the grader's", sources)
	}
	p.shot("thumb-over-grade-desktop")
}

// waitGraded waits until the grader graded reply id of thread.
func waitGraded(t *testing.T, s *server, thread, id string) {
	t.Helper()
	var l struct {
		Messages []struct {
			ID     int64  `json:"id"`
			TurnID string `json:"turn_id"`
		}
	}
	if code := s.call(t, "GET", "/api/v1/threads/"+thread+"/messages", "", &l); code != http.StatusOK {
		t.Fatalf("list messages: %d", code)
	}
	turn := ""
	for _, m := range l.Messages {
		if fmt.Sprint(m.ID) == id {
			turn = m.TurnID
		}
	}
	if turn == "" {
		t.Fatalf("reply %s has no turn", id)
	}
	deadline := time.Now().Add(uiWait)
	for {
		var tr struct{ Grades []struct{ Source string } }
		s.call(t, "GET", "/api/v1/turns/"+turn, "", &tr)
		for _, g := range tr.Grades {
			if g.Source != "user" {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("reply %s was not graded", id)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
