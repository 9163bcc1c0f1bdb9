package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"yakor/turn"
	"yakor/web/oaicompat"
)

// weatherTool is a caller's tool as an OpenAI client sends it.
var weatherTool = map[string]any{"type": "function", "function": map[string]any{
	"name": "get_weather", "description": "The weather in a city",
	"parameters": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}},
}}

// toolModel is a model server that calls get_weather when it is offered
// and the conversation has not answered it yet, answers from a tool result,
// and answers JSON when asked for it.
func toolModel(t *testing.T, requests *requestLog) *fakeOpenAI {
	return newFakeOpenAI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		req := requests.record(r)
		msgs := req["messages"].([]any)
		last := msgs[len(msgs)-1].(map[string]any)
		w.Header().Set("Content-Type", "text/event-stream")
		switch {
		case last["role"] == "tool":
			streamChunks(w, []string{"In Paris it is ", fmt.Sprint(last["content"]), "."}, false)
		case req["response_format"] != nil:
			streamChunks(w, []string{`{"city": "Paris",`, "\n", `"note": "SEARCH_HISTORY: x"}`}, false)
		case strings.Contains(fmt.Sprint(req["tools"]), "get_weather"):
			for _, chunk := range []string{
				`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_w1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":"}}]}}]}`,
				`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]},"finish_reason":"tool_calls"}]}`,
			} {
				fmt.Fprintf(w, "data: %s\n\n", chunk)
			}
			fmt.Fprint(w, "data: [DONE]\n\n")
		default:
			streamChunks(w, []string{"Noted."}, false)
		}
	})
}

// TestCallerTools: the caller's tools reach the model beside Yakor's own
// search (under a name of its own, never shown); the model's call comes
// back in OpenAI's shape, streamed and not, with finish_reason tool_calls;
// the caller's result (sent with its whole history, as agents do) is stored
// once as a tool message and the model answers from it; a result sent
// again is not stored twice.
func TestCallerTools(t *testing.T) {
	var requests requestLog
	s := mustStack(t, toolModel(t, &requests).model(), turn.Config{})
	ask := []any{user("What is the weather in Paris?")}
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			conv := fmt.Sprintf("weather-%v", stream)
			req := map[string]any{"model": "yakor", "messages": ask, "tools": []any{weatherTool}, "tool_choice": "auto", "stream": stream}
			r := s.complete(t, req, "X-Yakor-Conversation", conv)
			calls, finish := toolCallsOf(t, r, stream)
			if len(calls) != 1 || calls[0].ID != "call_w1" || calls[0].Function.Name != "get_weather" || calls[0].Function.Arguments != `{"city":"Paris"}` || finish != "tool_calls" {
				t.Fatalf("calls %+v finish %q", calls, finish)
			}
			first := requests.take()
			tools := fmt.Sprint(first[len(first)-1]["tools"])
			if !strings.Contains(tools, "get_weather") || !strings.Contains(tools, "yakor_search_history") || first[len(first)-1]["tool_choice"] != "auto" {
				t.Fatalf("tools offered %s, choice %v", tools, first[len(first)-1]["tool_choice"])
			}

			call := map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "call_w1", "type": "function",
				"function": map[string]any{"name": "get_weather", "arguments": `{"city":"Paris"}`}}}}
			result := map[string]any{"role": "tool", "tool_call_id": "call_w1", "content": "18 C and sunny"}
			req["messages"] = []any{ask[0], call, result}
			for range 2 { // the second is a resend: answered once, stored once
				r = s.complete(t, req, "X-Yakor-Conversation", conv)
				text := replyText(t, r, stream)
				if text != "In Paris it is 18 C and sunny." {
					t.Fatalf("reply %q", text)
				}
			}
			second := requests.take()
			if len(second) != 1 {
				t.Fatalf("the model was called %d times for a result and its resend", len(second))
			}
			msgs := second[0]["messages"].([]any)
			sent := msgs[len(msgs)-2].(map[string]any)
			if sent["role"] != "assistant" || !strings.Contains(fmt.Sprint(sent["tool_calls"]), "call_w1") {
				t.Fatalf("the call before the result: %v", sent)
			}
			thread, _ := r.thread()
			stored := s.storedMessages(t, thread)
			roles := []string{}
			for _, m := range stored {
				roles = append(roles, m.Role)
			}
			if strings.Join(roles, ",") != "user,assistant,tool,assistant" || !strings.Contains(stored[1].Content, "get_weather") || !strings.Contains(stored[2].Content, "18 C") {
				t.Fatalf("stored %+v", stored)
			}
		})
	}
}

// TestPassThrough: a JSON response format reaches the model and its reply
// comes back byte for byte (no marker or scrubbing); images go to the
// model as parts and are stored as a named placeholder; a message's name
// is stored as its author; a trailing assistant message is the prefill the
// model goes on from.
func TestPassThrough(t *testing.T) {
	var requests requestLog
	s := mustStack(t, toolModel(t, &requests).model(), turn.Config{})
	r := s.complete(t, map[string]any{"model": "yakor", "response_format": map[string]any{"type": "json_schema",
		"json_schema": map[string]any{"name": "city", "schema": map[string]any{"type": "object"}}},
		"messages": []any{user("Which city? Answer in JSON.")}})
	if got := r.completion(t).Choices[0].Message.Text(); got != "{\"city\": \"Paris\",\n\"note\": \"SEARCH_HISTORY: x\"}" {
		t.Fatalf("JSON reply %q", got)
	}
	sent := requests.take()[0]
	if rf := fmt.Sprint(sent["response_format"]); !strings.Contains(rf, "json_schema") || !strings.Contains(rf, "city") {
		t.Fatalf("response_format sent: %s", rf)
	}
	if strings.Contains(fmt.Sprint(sent["messages"]), "SEARCH_HISTORY") {
		t.Fatal("a JSON turn's prompt still tells the model to write search markers")
	}

	img := map[string]any{"role": "user", "name": "ann", "content": []any{
		map[string]any{"type": "text", "text": "What is on this picture?"},
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": "https://example.com/cat.png"}},
	}}
	r = s.complete(t, map[string]any{"model": "yakor", "messages": []any{img, assistant("It shows")}}, "X-Yakor-Conversation", "pictures")
	if got := r.completion(t).Choices[0].Message.Text(); got != "Noted." {
		t.Fatalf("reply %q", got)
	}
	msgs := requests.take()[0]["messages"].([]any)
	raw, _ := json.Marshal(msgs[len(msgs)-2:])
	if !strings.Contains(string(raw), `"image_url":{"url":"https://example.com/cat.png"}`) || !strings.Contains(string(raw), `"name":"ann"`) ||
		!strings.Contains(string(raw), `{"content":"It shows","role":"assistant"}`) {
		t.Fatalf("the turn's messages as sent: %s", raw)
	}
	thread, _ := r.thread()
	stored := s.storedMessages(t, thread)
	if len(stored) != 2 || stored[0].Content != "What is on this picture?\n[image: https://example.com/cat.png]" || stored[1].Content != "It showsNoted." {
		t.Fatalf("stored %+v", stored)
	}
}

// toolCallsOf reads the tool calls and finish reason of a reply, streamed
// or not.
func toolCallsOf(t *testing.T, r chatReply, stream bool) (calls []oaiToolCall, finish string) {
	t.Helper()
	if !stream {
		c := r.completion(t)
		for _, tc := range c.Choices[0].Message.ToolCalls {
			calls = append(calls, oaiToolCall{ID: tc.ID, Function: tc.Function})
		}
		if c.Choices[0].Message.Content != nil {
			t.Fatalf("a reply of tool calls only has content %q", *c.Choices[0].Message.Content)
		}
		return calls, c.Choices[0].FinishReason
	}
	chunks, streamErr, done := r.chunks(t)
	if streamErr != nil || !done {
		t.Fatalf("stream error %+v, done %v", streamErr, done)
	}
	for _, ch := range chunks {
		for _, c := range ch.Choices {
			for _, tc := range c.Delta.ToolCalls {
				calls = append(calls, oaiToolCall{ID: tc.ID, Function: tc.Function})
			}
			if c.FinishReason != nil {
				finish = *c.FinishReason
			}
		}
	}
	return calls, finish
}

// replyText is a reply's text, streamed or not.
func replyText(t *testing.T, r chatReply, stream bool) string {
	t.Helper()
	if !stream {
		return r.completion(t).Choices[0].Message.Text()
	}
	chunks, streamErr, done := r.chunks(t)
	if streamErr != nil || !done {
		t.Fatalf("stream error %+v, done %v", streamErr, done)
	}
	var b strings.Builder
	for _, ch := range chunks {
		for _, c := range ch.Choices {
			if c.Delta.Content != nil {
				b.WriteString(*c.Delta.Content)
			}
		}
	}
	return b.String()
}

// oaiToolCall is a tool call as a client reads it.
type oaiToolCall struct {
	ID       string
	Function oaicompat.FunctionCall
}
