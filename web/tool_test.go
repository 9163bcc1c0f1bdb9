package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"yakor/turn"
)

// TestSearchTool: with SearchTool on, a model server that calls tools gets
// search_history offered, calls it, and sees the hits as the tool's result.
func TestSearchTool(t *testing.T) {
	var requests requestLog
	fake := newFakeOpenAI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		req := requests.record(r)
		msgs := req["messages"].([]any)
		last := msgs[len(msgs)-1].(map[string]any)
		w.Header().Set("Content-Type", "text/event-stream")
		if last["role"] == "tool" {
			streamChunks(w, []string{"The oak table was 48200."}, false)
			return
		}
		if !strings.Contains(fmt.Sprint(last["content"]), "oak") {
			streamChunks(w, []string{"Noted."}, false)
			return
		}
		// A tool call streamed in two pieces, as servers do.
		for _, chunk := range []string{
			`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_7","type":"function","function":{"name":"search_history","arguments":"{\"query\":"}}]}}]}`,
			`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"oak table price\"}"}}]},"finish_reason":"tool_calls"}]}`,
		} {
			fmt.Fprintf(w, "data: %s\n\n", chunk)
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	})
	s := mustStack(t, fake.model(), turn.Config{SearchTool: true, WindowChars: 300})
	thread := s.mustThread(t)
	path := "/api/v1/threads/" + thread + "/messages"
	s.do(t, "POST", path, `{"content":"The oak table costs 48200 rubles."}`, nil)
	for i := range 5 {
		s.do(t, "POST", path, jsonBody(map[string]string{"content": fmt.Sprintf("%d %s", i, strings.Repeat("filler about chairs ", 5))}), nil)
	}
	var r turnResp
	if code := s.do(t, "POST", path, `{"content":"What did the oak table cost?"}`, &r); code != http.StatusOK {
		t.Fatalf("status %d: %s", code, r.Error)
	}
	if r.Reply.Content != "The oak table was 48200." {
		t.Fatalf("reply %q", r.Reply.Content)
	}
	reqs := requests.take()
	first, second := reqs[len(reqs)-2], reqs[len(reqs)-1]
	tools, _ := first["tools"].([]any)
	if len(tools) != 1 || !strings.Contains(fmt.Sprint(tools[0]), "search_history") {
		t.Fatalf("tools offered: %v", first["tools"])
	}
	msgs := second["messages"].([]any)
	call := msgs[len(msgs)-2].(map[string]any)
	result := msgs[len(msgs)-1].(map[string]any)
	if call["role"] != "assistant" || !strings.Contains(fmt.Sprint(call["tool_calls"]), "call_7") {
		t.Fatalf("the assistant's call is missing: %v", call)
	}
	if result["role"] != "tool" || result["tool_call_id"] != "call_7" || !strings.Contains(fmt.Sprint(result["content"]), "48200") {
		t.Fatalf("tool result: %v", result)
	}
	trs := s.turnsOf(t, thread)
	if tr := trs[len(trs)-1]; len(tr.Searches) != 1 || tr.Searches[0].Query != "oak table price" {
		t.Fatalf("trace searches: %+v", tr.Searches)
	}
}
