package web_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"yakor/turn"
)

type message struct {
	ID           int64   `json:"id"`
	Role         string  `json:"role"`
	Kind         string  `json:"kind"`
	Content      string  `json:"content"`
	SupersededAt *string `json:"superseded_at"`
}

type turnResp struct {
	UserMessage message `json:"user_message"`
	Reply       message `json:"reply"`
	TurnID      string  `json:"turn_id"`
	Replayed    bool    `json:"replayed"`
	Error       string  `json:"error"`
}

func TestConversation(t *testing.T) {
	s := mustStack(t, nil, turn.Config{})
	thread := s.mustThread(t)
	sent := []string{"The price list: board 3400, panel 1250.", "Add delivery, 900.", "What is the total for a board and a panel?"}
	for _, content := range sent {
		var r turnResp
		if code := s.do(t, "POST", "/api/v1/threads/"+thread+"/messages", jsonBody(map[string]string{"content": content}), &r); code != http.StatusOK {
			t.Fatalf("send %q: %d %s", content, code, r.Error)
		}
		if r.UserMessage.Content != content || r.Reply.Role != "assistant" || r.Reply.Content == "" || r.TurnID == "" {
			t.Fatalf("send %q: %+v", content, r)
		}
	}
	var list struct{ Messages []message }
	if code := s.do(t, "GET", "/api/v1/threads/"+thread+"/messages", "", &list); code != http.StatusOK {
		t.Fatalf("list: %d", code)
	}
	if len(list.Messages) != 6 {
		t.Fatalf("thread holds %d messages, want 6", len(list.Messages))
	}
	for i, m := range list.Messages {
		wantRole := "user"
		if i%2 == 1 {
			wantRole = "assistant"
		}
		if m.Role != wantRole || m.Kind != "message" {
			t.Fatalf("message %d: role %q kind %q", i, m.Role, m.Kind)
		}
		if i%2 == 0 && m.Content != sent[i/2] {
			t.Fatalf("message %d: %q, want %q", i, m.Content, sent[i/2])
		}
		if i > 0 && m.ID <= list.Messages[i-1].ID {
			t.Fatalf("messages out of order at %d", i)
		}
	}
	// The offline model answers from memory: the third reply quotes the price list.
	if !strings.Contains(list.Messages[5].Content, "3400") {
		t.Fatalf("offline reply does not quote the price list: %q", list.Messages[5].Content)
	}
}

func TestSendStream(t *testing.T) {
	s := mustStack(t, nil, turn.Config{})
	thread := s.mustThread(t)
	code, events := s.stream(t, thread, `{"content":"Привет! Прайс: ЛДСП 3400 руб."}`)
	if code != http.StatusOK || len(events) < 3 {
		t.Fatalf("status %d, %d events", code, len(events))
	}
	var text strings.Builder
	for _, ev := range events[:len(events)-1] {
		if ev.name != "delta" {
			t.Fatalf("event %q before done", ev.name)
		}
		text.WriteString(ev.data["text"].(string))
	}
	done := events[len(events)-1]
	if done.name != "done" {
		t.Fatalf("last event %q", done.name)
	}
	reply := done.data["reply"].(map[string]any)
	if reply["content"] != text.String() {
		t.Fatalf("deltas %q, stored reply %q", text.String(), reply["content"])
	}
	if done.data["turn_id"] == "" || done.data["user_message"].(map[string]any)["content"] != "Привет! Прайс: ЛДСП 3400 руб." {
		t.Fatalf("done: %v", done.data)
	}
}

func TestClientIDAnswersOnce(t *testing.T) {
	s := mustStack(t, nil, turn.Config{})
	thread := s.mustThread(t)
	body := `{"content":"remember 42","client_id":"abc-1"}`
	var first, again turnResp
	if code := s.do(t, "POST", "/api/v1/threads/"+thread+"/messages", body, &first); code != http.StatusOK {
		t.Fatalf("first: %d", code)
	}
	if code := s.do(t, "POST", "/api/v1/threads/"+thread+"/messages", body, &again); code != http.StatusOK {
		t.Fatalf("again: %d", code)
	}
	if !again.Replayed || again.TurnID != first.TurnID || again.Reply.ID != first.Reply.ID || again.UserMessage.ID != first.UserMessage.ID {
		t.Fatalf("retry was answered again: first %+v, again %+v", first, again)
	}

	// Concurrent sends with one client id store one message and one reply;
	// each caller gets that answer or is told to retry (409).
	body = `{"content":"concurrent","client_id":"abc-2"}`
	var wg sync.WaitGroup
	codes := make([]int, 8)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = s.do(t, "POST", "/api/v1/threads/"+thread+"/messages", body, nil)
		}()
	}
	wg.Wait()
	ok := 0
	for _, c := range codes {
		switch c {
		case http.StatusOK:
			ok++
		case http.StatusConflict:
		default:
			t.Fatalf("concurrent send: status %d", c)
		}
	}
	if ok == 0 {
		t.Fatal("no concurrent send succeeded")
	}
	c := s.counts(t)
	if c["messages"] != 4 || c["turns"] != 2 {
		t.Fatalf("after retries: %d messages, %d turns; want 4 and 2", c["messages"], c["turns"])
	}
}

func TestContext(t *testing.T) {
	s := mustStack(t, nil, turn.Config{WindowChars: 300})
	thread := s.mustThread(t)
	for _, c := range []string{strings.Repeat("a", 250), "short one"} {
		if code := s.do(t, "POST", "/api/v1/threads/"+thread+"/messages", jsonBody(map[string]string{"content": c}), nil); code != http.StatusOK {
			t.Fatalf("send: %d", code)
		}
	}
	var ctx struct {
		Layers []struct {
			Name   string
			Chars  int
			Budget int
			Text   string
		}
		TotalChars int `json:"total_chars"`
	}
	if code := s.do(t, "GET", "/api/v1/threads/"+thread+"/context", "", &ctx); code != http.StatusOK {
		t.Fatalf("context: %d", code)
	}
	var names []string
	for _, l := range ctx.Layers {
		names = append(names, l.Name)
	}
	if strings.Join(names, " ") != "system facts anchors window memory message" {
		t.Fatalf("layers: %+v", ctx.Layers)
	}
	sum := 0
	for _, l := range ctx.Layers {
		sum += l.Chars
		if l.Chars != len([]rune(l.Text)) && l.Name != "window" {
			t.Fatalf("layer %s: chars %d, text %d", l.Name, l.Chars, len([]rune(l.Text)))
		}
	}
	w := ctx.Layers[3]
	if sum != ctx.TotalChars || w.Budget != 300 || w.Chars > 300 || w.Chars == 0 {
		t.Fatalf("sizes: total %d (sum %d), window %d of %d", ctx.TotalChars, sum, w.Chars, w.Budget)
	}
	if strings.Contains(w.Text, strings.Repeat("a", 250)) {
		t.Fatal("the 250-character message cannot fit beside the newer ones, yet it is in the window")
	}
}

func TestProbes(t *testing.T) {
	s := mustStack(t, nil, turn.Config{})
	for _, path := range []string{"/healthz", "/readyz"} {
		if code := s.do(t, "GET", path, "", nil); code != http.StatusOK {
			t.Fatalf("%s: %d", path, code)
		}
	}
	thread := s.mustThread(t)
	s.do(t, "POST", "/api/v1/threads/"+thread+"/messages", `{"content":"hi"}`, nil)
	resp, err := http.Get(s.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 1<<16)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	for _, want := range []string{`yakor_turns_total{status="ok"} 1`, `yakor_http_requests_total{method="POST",route="/api/v1/threads/:id/messages",status="200"} 1`} {
		if !strings.Contains(b.String(), want) {
			t.Fatalf("/metrics lacks %s", want)
		}
	}
}
