package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"yakor/turn"
)

// TestBrokenModel: a model server is not taken at its word. A stream that
// ends cleanly but before its end (no finish reason, no [DONE]) is a failed
// turn, not a reply, and the client is told; a runaway 30 MB reply is cut
// at --max-reply-chars (finish_reason "length", the turn's error says so)
// and the server's memory stays flat while it streams.
func TestBrokenModel(t *testing.T) {
	var requests requestLog
	fake := newFakeOpenAI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		req := requests.record(r)
		msgs := req["messages"].([]any)
		last := fmt.Sprint(msgs[len(msgs)-1].(map[string]any)["content"])
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(content string, finish any) bool {
			b, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion.chunk", "model": "fake-1",
				"choices": []map[string]any{{"index": 0, "delta": map[string]string{"content": content}, "finish_reason": finish}}})
			_, err := fmt.Fprintf(w, "data: %s\n\n", b)
			w.(http.Flusher).Flush()
			return err == nil
		}
		switch {
		case strings.Contains(last, "cut"):
			chunk("The oak table costs", nil) // and the body ends: no finish reason, no [DONE]
		case strings.Contains(last, "runaway"):
			piece := strings.Repeat("blah ", 6000) // 30,000 characters a chunk, 30 MB in all
			for i := 0; i < 1000 && chunk(piece, nil); i++ {
			}
			chunk("", "stop")
			fmt.Fprint(w, "data: [DONE]\n\n")
		default:
			chunk("Noted.", nil) // a finish reason is not required when [DONE] comes
			fmt.Fprint(w, "data: [DONE]\n\n")
		}
	})
	s := mustStack(t, fake.model(), turn.Config{})
	thread := s.mustThread(t)
	path := "/api/v1/threads/" + thread + "/messages"
	var ok turnResp
	if code := s.do(t, "POST", path, `{"content":"hello"}`, &ok); code != http.StatusOK || ok.Reply.Content != "Noted." {
		t.Fatalf("a stream ended by [DONE]: %d %+v", code, ok)
	}

	var cut turnResp
	if code := s.do(t, "POST", path, `{"content":"a cut stream, please"}`, &cut); code != http.StatusBadGateway || !strings.Contains(cut.Error, "stream ended before the reply did") {
		t.Fatalf("a cut stream: %d %q", code, cut.Error)
	}
	r := s.complete(t, map[string]any{"stream": true, "messages": []any{user("another cut stream")}})
	if _, streamErr, done := r.chunks(t); streamErr == nil || done {
		t.Fatalf("a cut stream on /v1: error %v, done %v", streamErr, done)
	}
	for _, tr := range s.turnsOf(t, thread) {
		if tr.Status == "ok" && tr.UserMessageID == cut.UserMessage.ID {
			t.Fatalf("a cut stream was stored as a reply: %+v", tr)
		}
	}

	var peak atomic.Uint64
	stop := make(chan struct{})
	go func() {
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
				runtime.ReadMemStats(&m)
				if m.HeapInuse > peak.Load() {
					peak.Store(m.HeapInuse)
				}
			}
		}
	}()
	runtime.GC()
	r = s.complete(t, map[string]any{"messages": []any{user("a runaway reply")}}, "X-Yakor-Conversation", "runaway")
	close(stop)
	c := r.completion(t)
	if got := len([]rune(c.Choices[0].Message.Text())); got != 100_000 || c.Choices[0].FinishReason != "length" {
		t.Fatalf("a 30 MB reply: %d characters, finish %q", got, c.Choices[0].FinishReason)
	}
	th, _ := r.thread()
	trs := s.turnsOf(t, th)
	if tr := trs[len(trs)-1]; tr.Status != "ok" || !strings.Contains(tr.Error, "cut at 100000 characters") {
		t.Fatalf("the runaway turn: %+v", tr)
	}
	if p := peak.Load(); p > 100<<20 {
		t.Fatalf("the heap reached %d MB while a 30 MB reply streamed", p>>20)
	}
	t.Logf("heap peak while a 30 MB reply streamed: %.1f MB", float64(peak.Load())/(1<<20))
}
