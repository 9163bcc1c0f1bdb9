package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// cannedModel is an OpenAI-compatible chat model with canned answers, for
// the client libraries' tests: it calls the caller's get_weather tool when
// offered and asked about the weather, answers from a tool result, answers
// JSON when a response format or a forced tool asks for it, answers a
// question from the figures earlier in its prompt (so that an answer shows
// what Yakor's memory put there), and fails the first request of a message
// that says FAIL-ONCE with 502. It records every request.
type cannedModel struct {
	*httptest.Server
	mu       sync.Mutex
	requests []map[string]any
	failed   map[string]bool
}

// figure is a number of three or more digits: what the memory checks ask.
var figure = regexp.MustCompile(`\b\d{3,}\b|[A-Z]{2}-\d{4}`)

func newCannedModel(t *testing.T) *cannedModel {
	m := &cannedModel{failed: map[string]bool{}}
	m.Server = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.Close)
	return m
}

func (m *cannedModel) serve(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, "/models") {
		fmt.Fprint(w, `{"object":"list","data":[{"id":"canned-1","object":"model","created":0,"owned_by":"test"}]}`)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	if json.Unmarshal(body, &req) != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	m.requests = append(m.requests, req)
	msgs, _ := req["messages"].([]any)
	last, _ := msgs[len(msgs)-1].(map[string]any)
	content := fmt.Sprint(last["content"])
	fail := strings.Contains(content, "FAIL-ONCE") && !m.failed[content]
	m.failed[content] = m.failed[content] || fail
	m.mu.Unlock()
	if fail {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprint(w, `{"error":{"message":"the canned upstream is down once"}}`)
		return
	}
	text, call := answer(req, msgs, last)
	stream, _ := req["stream"].(bool)
	if !stream {
		writeCompletion(w, text, call)
		return
	}
	writeStream(w, text, call)
}

// toolCall is a call the canned model makes.
type toolCall struct{ name, args string }

// answer is the canned reply to req: text, or a call of a tool.
func answer(req map[string]any, msgs []any, last map[string]any) (string, *toolCall) {
	tools := fmt.Sprint(req["tools"])
	content := fmt.Sprint(last["content"])
	if name := forcedTool(req["tool_choice"]); name != "" {
		return "", &toolCall{name: name, args: `{"name":"Ann","age":31}`}
	}
	switch {
	case last["role"] == "tool":
		return "The weather in Paris: " + content + ".", nil
	case req["response_format"] != nil && fmt.Sprint(req["response_format"]) != "map[type:text]":
		return `{"name":"Ann","age":31}`, nil
	case strings.Contains(tools, "get_weather") && strings.Contains(strings.ToLower(content), "weather"):
		return "", &toolCall{name: "get_weather", args: `{"city":"Paris"}`}
	case strings.HasSuffix(strings.TrimSpace(content), "?"):
		var seen []string
		for _, raw := range msgs {
			mm, _ := raw.(map[string]any)
			seen = append(seen, figure.FindAllString(fmt.Sprint(mm["content"]), -1)...)
		}
		if len(seen) > 0 {
			return "From memory: " + strings.Join(seen, ", ") + ".", nil
		}
		return "I do not know yet.", nil
	}
	return "Noted.", nil
}

// forcedTool is the function a tool_choice forces, "" when none.
func forcedTool(choice any) string {
	c, ok := choice.(map[string]any)
	if !ok {
		return ""
	}
	if f, ok := c["function"].(map[string]any); ok {
		name, _ := f["name"].(string)
		return name
	}
	name, _ := c["name"].(string)
	return name
}

func writeCompletion(w http.ResponseWriter, text string, call *toolCall) {
	msg := map[string]any{"role": "assistant", "content": text}
	finish := "stop"
	if call != nil {
		msg["content"] = nil
		msg["tool_calls"] = []any{map[string]any{"id": "call_1", "type": "function", "function": map[string]string{"name": call.name, "arguments": call.args}}}
		finish = "tool_calls"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"id": "c", "object": "chat.completion", "model": "canned-1",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]int{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
}

func writeStream(w http.ResponseWriter, text string, call *toolCall) {
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta map[string]any, finish any) {
		b, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion.chunk", "model": "canned-1",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	if call != nil {
		half := len(call.args) / 2
		chunk(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": "call_1", "type": "function",
			"function": map[string]string{"name": call.name, "arguments": call.args[:half]}}}}, nil)
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]string{"arguments": call.args[half:]}}}}, "tool_calls")
	} else {
		for i, word := range strings.SplitAfter(text, " ") {
			d := map[string]any{"content": word}
			if i == 0 {
				d["role"] = "assistant"
			}
			chunk(d, nil)
		}
		chunk(map[string]any{}, "stop")
	}
	b, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion.chunk", "model": "canned-1", "choices": []any{},
		"usage": map[string]int{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
	fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", b)
}

// take returns the requests so far and forgets them.
func (m *cannedModel) take() []map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.requests
	m.requests = nil
	return r
}
