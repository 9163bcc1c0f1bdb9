package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"yakor/account"
	"yakor/turn"
)

// respond posts a Responses API request as a client would.
func (s *stack) respond(tb testing.TB, req map[string]any, headers ...string) chatReply {
	tb.Helper()
	if _, ok := req["model"]; !ok {
		req["model"] = "yakor"
	}
	return s.chat(tb, "sk-anything", "POST", "/v1/responses", jsonBody(req), headers...)
}

// response decodes a response object.
func (r chatReply) response(tb testing.TB) map[string]any {
	tb.Helper()
	var out map[string]any
	if err := json.Unmarshal([]byte(r.body), &out); err != nil || r.code != http.StatusOK {
		tb.Fatalf("status %d: %s (%v)", r.code, r.body, err)
	}
	return out
}

// outputText is the text of a response object's message items.
func outputText(resp map[string]any) string {
	var b strings.Builder
	for _, it := range resp["output"].([]any) {
		item := it.(map[string]any)
		if item["type"] != "message" {
			continue
		}
		for _, p := range item["content"].([]any) {
			b.WriteString(p.(map[string]any)["text"].(string))
		}
	}
	return b.String()
}

// TestResponses: the Responses API runs turns in Yakor's threads: a string
// input, previous_response_id continuing the same thread, function tools
// with function_call and function_call_output items, text.format passed as
// the response format, the stream's documented events in order, GET of a
// stored response, and errors in OpenAI's shape.
func TestResponses(t *testing.T) {
	var requests requestLog
	s := mustStack(t, toolModel(t, &requests).model(), turn.Config{})

	first := s.respond(t, map[string]any{"input": "The oak table costs 48200 rubles.", "instructions": "Be brief."})
	r1 := first.response(t)
	id1, _ := r1["id"].(string)
	if !strings.HasPrefix(id1, "resp_") || r1["object"] != "response" || r1["status"] != "completed" || outputText(r1) != "Noted." {
		t.Fatalf("first response %v", r1)
	}
	if u := r1["usage"].(map[string]any); u["total_tokens"].(float64) <= 0 {
		t.Fatalf("usage %v", u)
	}
	thread, _ := first.thread()
	second := s.respond(t, map[string]any{"input": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "input_text", "text": "And the chairs?"}}}}, "previous_response_id": id1})
	if th, created := second.thread(); th != thread || created {
		t.Fatalf("previous_response_id went to thread %s (new %v), want %s", th, created, thread)
	}
	if r2 := second.response(t); r2["previous_response_id"] != id1 {
		t.Fatalf("second response %v", r2)
	}
	if got := s.storedMessages(t, thread); len(got) != 4 || got[2].Content != "And the chairs?" {
		t.Fatalf("stored %+v", got)
	}
	if sent := fmt.Sprint(requests.take()[1]["messages"]); !strings.Contains(sent, "48200") || !strings.Contains(sent, "Be brief.") {
		t.Fatalf("the second turn's prompt lacks the memory: %s", sent)
	}

	got := s.chat(t, "sk-x", "GET", "/v1/responses/"+id1, "").response(t)
	if got["id"] != id1 || outputText(got) != "Noted." || got["status"] != "completed" {
		t.Fatalf("GET %v", got)
	}
	if r := s.chat(t, "sk-x", "GET", "/v1/responses/resp_nope", ""); r.code != http.StatusNotFound {
		t.Fatalf("unknown response: %d", r.code)
	}
	if e := s.respond(t, map[string]any{"input": "hi", "previous_response_id": "resp_00000000-0000-0000-0000-000000000000"}).openAIError(t, http.StatusNotFound); *e.Param != "previous_response_id" {
		t.Fatalf("unknown previous response: %+v", e)
	}

	t.Run("Tools", func(t *testing.T) {
		tool := map[string]any{"type": "function", "name": "get_weather", "parameters": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}
		r := s.respond(t, map[string]any{"input": "Weather in Paris?", "tools": []any{tool}}, "X-Yakor-Conversation", "resp-tools").response(t)
		out := r["output"].([]any)
		call := out[len(out)-1].(map[string]any)
		if call["type"] != "function_call" || call["call_id"] != "call_w1" || call["name"] != "get_weather" || call["arguments"] != `{"city":"Paris"}` {
			t.Fatalf("output %v", out)
		}
		r = s.respond(t, map[string]any{"previous_response_id": r["id"], "tools": []any{tool},
			"input": []any{map[string]any{"type": "function_call_output", "call_id": "call_w1", "output": "18 C"}}}).response(t)
		if outputText(r) != "In Paris it is 18 C." {
			t.Fatalf("after the tool: %v", r)
		}
	})

	t.Run("Format", func(t *testing.T) {
		r := s.respond(t, map[string]any{"input": "Which city?", "text": map[string]any{"format": map[string]any{"type": "json_schema", "name": "city", "schema": map[string]any{"type": "object"}}}}).response(t)
		var v map[string]any
		if err := json.Unmarshal([]byte(outputText(r)), &v); err != nil || v["city"] != "Paris" {
			t.Fatalf("structured output %q: %v", outputText(r), err)
		}
		sent := requests.take()
		if rf := fmt.Sprint(sent[len(sent)-1]["response_format"]); !strings.Contains(rf, "json_schema") {
			t.Fatalf("response_format sent: %s", rf)
		}
	})

	t.Run("Stream", func(t *testing.T) {
		r := s.respond(t, map[string]any{"input": "Hello there", "stream": true})
		var types []string
		var text strings.Builder
		seq := -1
		for _, block := range strings.Split(strings.TrimSpace(r.body), "\n\n") {
			lines := strings.SplitN(block, "\n", 2)
			name, _ := strings.CutPrefix(lines[0], "event: ")
			data, _ := strings.CutPrefix(lines[1], "data: ")
			var ev map[string]any
			if err := json.Unmarshal([]byte(data), &ev); err != nil || ev["type"] != name {
				t.Fatalf("event %q: %v", block, err)
			}
			if n := int(ev["sequence_number"].(float64)); n != seq+1 {
				t.Fatalf("sequence %d after %d", n, seq)
			}
			seq++
			types = append(types, name)
			if name == "response.output_text.delta" {
				text.WriteString(ev["delta"].(string))
			}
		}
		want := "response.created response.in_progress response.output_item.added response.content_part.added response.output_text.delta response.output_text.done response.content_part.done response.output_item.done response.completed"
		if strings.Join(types, " ") != want || text.String() != "Noted." {
			t.Fatalf("events %v, text %q", types, text.String())
		}
	})

	t.Run("Refusals", func(t *testing.T) {
		for _, tc := range []struct {
			body        map[string]any
			status      int
			param, code string
		}{
			{map[string]any{"input": "hi", "background": true}, 400, "background", "unsupported_parameter"},
			{map[string]any{"input": []any{map[string]any{"type": "item_reference", "id": "msg_1"}}}, 400, "input[0].type", "unsupported_value"},
			{map[string]any{"input": "hi", "model": "gpt-17"}, 404, "model", "model_not_found"},
			{map[string]any{"input": "hi", "max_output_tokens": 0}, 400, "max_output_tokens", "invalid_value"},
			{map[string]any{}, 400, "input", "missing_required_parameter"},
		} {
			e := s.respond(t, tc.body).openAIError(t, tc.status)
			if e.Param == nil || *e.Param != tc.param || e.Code == nil || *e.Code != tc.code {
				t.Fatalf("%v: %+v", tc.body, e)
			}
		}
	})
}

// TestResponsesKeys: with keys, a wrong key is 401 on the Responses API
// before anything else (an unknown response or model included).
func TestResponsesKeys(t *testing.T) {
	s := newStack(t, stackOptions{keys: true})
	mustKey(t, s, account.NewKey{Tenant: "acme", User: "ann"})
	time.Sleep(2100 * time.Millisecond) // the server checks for keys every 2 s
	for _, path := range []string{"/v1/responses", "/v1/responses/resp_x"} {
		method := "GET"
		if path == "/v1/responses" {
			method = "POST"
		}
		r := s.chat(t, "yk_wrong", method, path, `{"model":"gpt-17","input":"hi"}`)
		if e := r.openAIError(t, http.StatusUnauthorized); e.Type != "authentication_error" {
			t.Fatalf("%s: %+v", path, e)
		}
	}
}
