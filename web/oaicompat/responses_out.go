package oaicompat

import (
	"strconv"

	"yakor/llm"
	"yakor/turn"
)

// Response is a Responses API response object, built as a map so that
// each field has the shape (and the nulls) the API documents.
type Response map[string]any

// NewResponse is the response object of a turn: output is its message
// (when the model wrote text) and its function calls. status is
// "completed", "in_progress", "incomplete" or "failed"; rr repeats the
// request's settings.
func NewResponse(turnID, model string, created int64, rr ResponsesRequest) Response {
	r := Response{
		"id": ResponseID(turnID), "object": "response", "created_at": created, "status": "in_progress", "model": model,
		"output": []any{}, "usage": nil, "error": nil, "incomplete_details": nil,
		"previous_response_id": nil, "instructions": nil, "metadata": map[string]string{}, "tools": []any{}, "tool_choice": "auto",
		"parallel_tool_calls": true, "temperature": nil, "top_p": nil, "max_output_tokens": nil, "store": rr.Store, "truncation": "disabled",
		"text": map[string]any{"format": map[string]string{"type": "text"}}, "user": nil, "background": false,
	}
	for _, k := range []string{"previous_response_id", "instructions", "metadata", "tools", "tool_choice", "parallel_tool_calls", "temperature", "top_p", "max_output_tokens", "text", "user", "truncation"} {
		if v, ok := rr.Raw[k]; ok {
			r[k] = v
		}
	}
	if rr.Conversation != "" {
		r["conversation"] = map[string]string{"id": rr.Conversation}
	}
	return r
}

// Finish fills in a finished turn: its output, usage and status.
func (r Response) Finish(o turn.Outcome) Response {
	r["output"] = OutputItems(r["id"].(string), o.Text, o.ToolCalls, "completed")
	u := UsageOf(o)
	r["usage"] = map[string]any{
		"input_tokens": u.PromptTokens, "input_tokens_details": map[string]int{"cached_tokens": 0},
		"output_tokens": u.CompletionTokens, "output_tokens_details": map[string]int{"reasoning_tokens": 0},
		"total_tokens": u.TotalTokens,
	}
	r["status"] = "completed"
	switch o.Usage.FinishReason {
	case "length":
		r["status"], r["incomplete_details"] = "incomplete", map[string]string{"reason": "max_output_tokens"}
	case "content_filter":
		r["status"], r["incomplete_details"] = "incomplete", map[string]string{"reason": "content_filter"}
	}
	return r
}

// Fail marks the response failed with err's message.
func (r Response) Fail(code, message string) Response {
	r["status"], r["error"] = "failed", map[string]string{"code": code, "message": message}
	return r
}

// MessageItemID and CallItemID are the ids of a response's output items.
func MessageItemID(respID string) string { return "msg_" + respID[len(ResponseIDPrefix):] }

// CallItemID is the id of a response's i-th function call item.
func CallItemID(respID string, i int) string {
	return "fc_" + respID[len(ResponseIDPrefix):] + "_" + strconv.Itoa(i)
}

// OutputItems are a reply's output items: the message, when there is text,
// then a function_call item per call.
func OutputItems(respID, text string, calls []llm.ToolCall, status string) []any {
	items := []any{}
	if text != "" || len(calls) == 0 {
		items = append(items, MessageItem(respID, text, status))
	}
	for i, c := range calls {
		items = append(items, CallItem(respID, i, c, status))
	}
	return items
}

// MessageItem is the reply's message item.
func MessageItem(respID, text, status string) map[string]any {
	content := []any{}
	if status == "completed" {
		content = append(content, TextPart(text))
	}
	return map[string]any{"type": "message", "id": MessageItemID(respID), "status": status, "role": "assistant", "content": content}
}

// TextPart is an output_text part.
func TextPart(text string) map[string]any {
	return map[string]any{"type": "output_text", "text": text, "annotations": []any{}, "logprobs": []any{}}
}

// CallItem is one function call item.
func CallItem(respID string, i int, c llm.ToolCall, status string) map[string]any {
	return map[string]any{"type": "function_call", "id": CallItemID(respID, i), "call_id": c.ID, "name": c.Name, "arguments": c.Arguments, "status": status}
}

// ResponseStream makes the events of a streamed response, numbered in
// order.
type ResponseStream struct {
	resp    Response
	seq     int
	textOn  bool   // the message item was announced
	text    []byte // the text so far
	outputs int    // output items announced
}

// NewResponseStream starts the events of resp.
func NewResponseStream(resp Response) *ResponseStream { return &ResponseStream{resp: resp} }

// Event is one streamed event: its type and its data (which holds the
// type too).
type Event struct {
	Type string
	Data map[string]any
}

func (s *ResponseStream) event(typ string, data map[string]any) Event {
	data["type"], data["sequence_number"] = typ, s.seq
	s.seq++
	return Event{Type: typ, Data: data}
}

// Created is the first two events: response.created and
// response.in_progress.
func (s *ResponseStream) Created() []Event {
	return []Event{s.event("response.created", map[string]any{"response": s.resp}), s.event("response.in_progress", map[string]any{"response": s.resp})}
}

// Delta is a piece of the text (with the message item's opening events
// before the first).
func (s *ResponseStream) Delta(text string) []Event {
	var evs []Event
	id := MessageItemID(s.resp["id"].(string))
	if !s.textOn {
		s.textOn = true
		s.outputs++
		evs = append(evs,
			s.event("response.output_item.added", map[string]any{"output_index": 0, "item": MessageItem(s.resp["id"].(string), "", "in_progress")}),
			s.event("response.content_part.added", map[string]any{"item_id": id, "output_index": 0, "content_index": 0, "part": TextPart("")}))
	}
	s.text = append(s.text, text...)
	return append(evs, s.event("response.output_text.delta", map[string]any{"item_id": id, "output_index": 0, "content_index": 0, "delta": text, "logprobs": []any{}}))
}

// Completed is the events that end a finished turn: the message item's
// closing events, each call's item, and response.completed.
func (s *ResponseStream) Completed(o turn.Outcome) []Event {
	respID := s.resp["id"].(string)
	var evs []Event
	if !s.textOn && (o.Text != "" || len(o.ToolCalls) == 0) {
		evs = append(evs, s.Delta(o.Text)...) // a replayed reply, or an empty one
	}
	if s.textOn {
		id, text := MessageItemID(respID), string(s.text)
		evs = append(evs,
			s.event("response.output_text.done", map[string]any{"item_id": id, "output_index": 0, "content_index": 0, "text": text, "logprobs": []any{}}),
			s.event("response.content_part.done", map[string]any{"item_id": id, "output_index": 0, "content_index": 0, "part": TextPart(text)}),
			s.event("response.output_item.done", map[string]any{"output_index": 0, "item": MessageItem(respID, text, "completed")}))
	}
	for i, c := range o.ToolCalls {
		at := s.outputs
		s.outputs++
		item := CallItem(respID, i, c, "in_progress")
		item["arguments"] = ""
		evs = append(evs,
			s.event("response.output_item.added", map[string]any{"output_index": at, "item": item}),
			s.event("response.function_call_arguments.delta", map[string]any{"item_id": item["id"], "output_index": at, "delta": c.Arguments}),
			s.event("response.function_call_arguments.done", map[string]any{"item_id": item["id"], "output_index": at, "arguments": c.Arguments}),
			s.event("response.output_item.done", map[string]any{"output_index": at, "item": CallItem(respID, i, c, "completed")}))
	}
	if !s.textOn && len(o.ToolCalls) > 0 {
		o.Text = ""
	}
	s.resp.Finish(o)
	typ := "response.completed"
	if s.resp["status"] == "incomplete" {
		typ = "response.incomplete"
	}
	return append(evs, s.event(typ, map[string]any{"response": s.resp}))
}

// Failed is the event of a turn that failed after the stream started.
func (s *ResponseStream) Failed(code, message string) Event {
	return s.event("response.failed", map[string]any{"response": s.resp.Fail(code, message)})
}
