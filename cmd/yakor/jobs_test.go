package main

import (
	"fmt"
	"net/http"
	"syscall"
	"testing"
	"time"
	"yakor/postgres/pgtest"
)

type anchorsResp struct {
	Anchors []struct {
		ID        int64
		Topic     string
		MessageID int64 `json:"message_id"`
	}
	ProcessedThrough int64 `json:"processed_through"`
}

// TestQueuedJobsSurviveSIGKILL: the upkeep jobs queued by one server
// (which runs no workers), killed outright, are worked by the next server
// to start, once each: no message anchored twice, no duplicate anchor, one
// decision per message (and no grade of the offline model's replies).
func TestQueuedJobsSurviveSIGKILL(t *testing.T) {
	dir := pgtest.DataDir(t)
	s := startServer(t, dir, "--workers", "0")
	var th struct{ ID string }
	s.call(t, "POST", "/api/v1/threads", `{"title":"jobs"}`, &th)
	var turnIDs []string
	var last int64
	for _, c := range []string{
		"Прайс на ЛДСП: Egger 16 мм — 3400 руб за лист.",
		"ЛДСП Egger: нужно 12 листов, итого 40800 руб.",
		"Доставка по Москве стоит 2500 руб.",
		"Доставка в субботу, подъём 800 руб.",
		"Вернёмся к ЛДСП Egger: итого теперь 43200 руб.",
	} {
		var r struct {
			Reply  struct{ ID int64 }
			TurnID string `json:"turn_id"`
		}
		if code := s.call(t, "POST", "/api/v1/threads/"+th.ID+"/messages", fmt.Sprintf(`{"content":%q}`, c), &r); code != http.StatusOK {
			t.Fatalf("send: %d", code)
		}
		turnIDs = append(turnIDs, r.TurnID)
		last = r.Reply.ID
	}
	var a anchorsResp
	s.call(t, "GET", "/api/v1/threads/"+th.ID+"/anchors", "", &a)
	if a.ProcessedThrough != 0 || len(a.Anchors) != 0 {
		t.Fatalf("a server with no workers anchored: %+v", a)
	}
	s.stop(t, syscall.SIGKILL)

	s = startServer(t, dir, "--workers", "2")
	deadline := time.Now().Add(60 * time.Second)
	for a.ProcessedThrough < last {
		if time.Now().After(deadline) {
			t.Fatalf("queued jobs did not run after the restart: processed through %d of %d\n%s", a.ProcessedThrough, last, s.log)
		}
		time.Sleep(100 * time.Millisecond)
		s.call(t, "GET", "/api/v1/threads/"+th.ID+"/anchors", "", &a)
	}
	if len(a.Anchors) != 2 {
		t.Fatalf("%d anchors, want 2 (chipboard, delivery): %+v", len(a.Anchors), a.Anchors)
	}
	seen := map[int64]bool{}
	for _, an := range a.Anchors {
		if seen[an.MessageID] {
			t.Fatalf("two anchors set at message %d", an.MessageID)
		}
		seen[an.MessageID] = true
	}
	for _, id := range turnIDs {
		var tr struct {
			Anchors []struct {
				MessageID int64 `json:"message_id"`
			}
			Grades []struct{ Source, Grader string }
		}
		s.call(t, "GET", "/api/v1/turns/"+id, "", &tr)
		if len(tr.Anchors) != 2 {
			t.Fatalf("turn %s: %d decisions, want one per message", id, len(tr.Anchors))
		}
		// The offline model's replies are not graded (they are canned).
		if len(tr.Grades) != 0 {
			t.Fatalf("turn %s: grades %+v, want none of the offline model's reply", id, tr.Grades)
		}
	}
}
