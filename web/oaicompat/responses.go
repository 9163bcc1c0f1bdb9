package oaicompat

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"yakor/llm"
)

// ResponseIDPrefix starts a response's id: resp_ and the turn's id.
const ResponseIDPrefix = "resp_"

// ResponseID is a turn's id as a response id.
func ResponseID(turnID string) string { return ResponseIDPrefix + turnID }

// ResponsesRequest is a POST /v1/responses body, as Yakor takes it: the
// chat request it comes to, and what picks its thread.
type ResponsesRequest struct {
	// Chat is the request as Chat Completions would say it: instructions
	// as a system message, the input items as messages, text.format as
	// response_format, max_output_tokens as max_completion_tokens.
	Chat ChatRequest
	// PreviousResponseID continues the thread of that response.
	PreviousResponseID string
	// Conversation names the conversation (a conversation id or key).
	Conversation string
	// Store is the request's store (true unless it said false).
	Store bool
	// Raw keeps the fields a response object repeats back (instructions,
	// tools, tool_choice, text, metadata…).
	Raw map[string]json.RawMessage
}

// responsesAccepted are the fields of a Responses request Yakor takes.
var responsesAccepted = []string{
	"model", "input", "instructions", "previous_response_id", "conversation", "store", "tools", "tool_choice",
	"parallel_tool_calls", "text", "stream", "temperature", "top_p", "max_output_tokens", "metadata", "user",
	"safety_identifier", "prompt_cache_key", "truncation", "include", "service_tier", "stream_options",
}

// responsesRefusals say why known Responses fields are refused.
var responsesRefusals = map[string]string{
	"background":     "Yakor answers in the request: background responses are not supported",
	"reasoning":      "Yakor does not pass reasoning settings to the model",
	"prompt":         "stored prompt templates are not supported: send instructions",
	"top_logprobs":   "Yakor does not return log probabilities from the Responses API",
	"max_tool_calls": "Yakor does not bound the model's tool calls",
}

// ParseResponsesRequest parses a Responses API body. It refuses, naming
// the field, what Yakor would otherwise ignore. The errors are
// *RequestError.
func ParseResponsesRequest(body []byte) (ResponsesRequest, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil || fields == nil {
		return ResponsesRequest{}, invalid("", "the request body must be a JSON object")
	}
	for k, v := range fields {
		if string(v) == "null" {
			delete(fields, k)
		}
	}
	for _, k := range sortedKeys(fields) {
		if slices.Contains(responsesAccepted, k) {
			continue
		}
		if why, ok := responsesRefusals[k]; ok {
			return ResponsesRequest{}, unsupported(k, "the parameter %q is not supported: %s", k, why)
		}
		return ResponsesRequest{}, unsupported(k, "unknown parameter %q: Yakor refuses parameters it does not support rather than ignore them", k)
	}
	rr := ResponsesRequest{Store: true, Raw: fields}
	if err := rr.readSettings(fields); err != nil {
		return ResponsesRequest{}, err
	}
	chat, err := rr.chatBody(fields)
	if err != nil {
		return ResponsesRequest{}, err
	}
	if rr.Chat, err = ParseChatRequest(chat); err != nil {
		return ResponsesRequest{}, responsesParam(err)
	}
	return rr, nil
}

// readSettings reads the fields that are the Responses API's own.
func (rr *ResponsesRequest) readSettings(fields map[string]json.RawMessage) error {
	d := decoder{fields: fields}
	d.field("previous_response_id", &rr.PreviousResponseID, "a string")
	d.field("store", &rr.Store, "true or false")
	if d.err != nil {
		return d.err
	}
	if raw, ok := fields["conversation"]; ok {
		var id string
		if json.Unmarshal(raw, &id) != nil {
			var obj struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(raw, &obj); err != nil || obj.ID == "" {
				return invalid("conversation", "conversation must be a conversation id or {\"id\": …}")
			}
			id = obj.ID
		}
		rr.Conversation = strings.TrimSpace(id)
	}
	if rr.PreviousResponseID != "" && rr.Conversation != "" {
		return invalid("previous_response_id", "send previous_response_id or conversation, not both")
	}
	if raw, ok := fields["truncation"]; ok && string(raw) != `"auto"` && string(raw) != `"disabled"` {
		return invalid("truncation", "truncation must be \"auto\" or \"disabled\" (Yakor fits every prompt to its window either way)")
	}
	if raw, ok := fields["include"]; ok {
		var include []string
		if err := json.Unmarshal(raw, &include); err != nil {
			return invalid("include", "include must be a list")
		}
		if len(include) > 0 {
			return unsupportedValue("include", "include %q is not supported: Yakor returns the output only", include[0])
		}
	}
	return nil
}

// chatBody is the request as a Chat Completions body.
func (rr *ResponsesRequest) chatBody(fields map[string]json.RawMessage) ([]byte, error) {
	chat := map[string]json.RawMessage{}
	for _, k := range []string{"model", "stream", "temperature", "top_p", "metadata", "user", "safety_identifier", "prompt_cache_key", "tool_choice", "parallel_tool_calls"} {
		if v, ok := fields[k]; ok {
			chat[k] = v
		}
	}
	if v, ok := fields["max_output_tokens"]; ok {
		chat["max_completion_tokens"] = v
	}
	if v, ok := fields["stream_options"]; ok {
		chat["stream_options"] = v
	}
	if v, ok := fields["tools"]; ok {
		tools, err := parseTools("tools", v, func(d toolDef) (toolDef, bool) { return d, d.Name != "" })
		if err != nil {
			return nil, err
		}
		chat["tools"] = chatToolsJSON(tools)
	}
	if v, ok := fields["tool_choice"]; ok {
		chat["tool_choice"] = chatToolChoice(v)
	}
	if v, ok := fields["text"]; ok {
		rf, err := textFormat(v)
		if err != nil {
			return nil, err
		}
		if rf != nil {
			chat["response_format"] = rf
		}
	}
	msgs, err := inputMessages(fields)
	if err != nil {
		return nil, err
	}
	chat["messages"] = msgs
	return json.Marshal(chat)
}

// responsesParam renames a Chat Completions param in err to its Responses
// name.
func responsesParam(err error) error {
	re, ok := err.(*RequestError)
	if !ok {
		return err
	}
	for chat, resp := range map[string]string{"max_completion_tokens": "max_output_tokens", "response_format": "text.format", "messages": "input"} {
		if strings.HasPrefix(re.Param, chat) {
			re.Param = resp + strings.TrimPrefix(re.Param, chat)
		}
	}
	return re
}

// chatToolsJSON is tools in Chat Completions' shape.
func chatToolsJSON(tools []llm.Tool) json.RawMessage {
	out := make([]map[string]any, len(tools))
	for i, t := range tools {
		f := map[string]any{"name": t.Name, "description": t.Description, "strict": t.Strict}
		if len(t.Parameters) > 0 {
			f["parameters"] = t.Parameters
		}
		out[i] = map[string]any{"type": "function", "function": f}
	}
	b, _ := json.Marshal(out)
	return b
}

// chatToolChoice is a Responses tool_choice in Chat Completions' shape: a
// function is named under "function" there.
func chatToolChoice(raw json.RawMessage) json.RawMessage {
	var c struct {
		Type string `json:"type"`
		Name string `json:"name"`
	}
	if json.Unmarshal(raw, &c) != nil || c.Type != "function" || c.Name == "" {
		return raw
	}
	b, _ := json.Marshal(map[string]any{"type": "function", "function": map[string]string{"name": c.Name}})
	return b
}

// textFormat is text.format as a response_format (nil for text).
func textFormat(raw json.RawMessage) (json.RawMessage, error) {
	var text map[string]json.RawMessage
	if err := json.Unmarshal(raw, &text); err != nil {
		return nil, invalid("text", "text must be an object")
	}
	for k := range text {
		if k != "format" && k != "verbosity" {
			return nil, unsupported("text."+k, "text.%s is not supported", k)
		}
	}
	f, ok := text["format"]
	if !ok || string(f) == "null" {
		return nil, nil
	}
	var format struct {
		Type        string          `json:"type"`
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Schema      json.RawMessage `json:"schema"`
		Strict      *bool           `json:"strict"`
	}
	if err := json.Unmarshal(f, &format); err != nil {
		return nil, invalid("text.format", "text.format must be an object with a type")
	}
	rf := map[string]any{"type": format.Type}
	if format.Type == "json_schema" {
		s := map[string]any{"name": format.Name, "schema": format.Schema}
		if format.Description != "" {
			s["description"] = format.Description
		}
		if format.Strict != nil {
			s["strict"] = *format.Strict
		}
		rf["json_schema"] = s
	}
	b, _ := json.Marshal(rf)
	if _, err := ResponseFormat("text.format", b); err != nil {
		return nil, err
	}
	return b, nil
}

// inputMessages are instructions and input as Chat Completions messages.
func inputMessages(fields map[string]json.RawMessage) (json.RawMessage, error) {
	var msgs []map[string]any
	if raw, ok := fields["instructions"]; ok {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, invalid("instructions", "instructions must be a string")
		}
		if strings.TrimSpace(s) != "" {
			msgs = append(msgs, map[string]any{"role": "system", "content": s})
		}
	}
	raw, ok := fields["input"]
	if !ok {
		return nil, missing("input", "input is required: a string or a list of items")
	}
	var text string
	if json.Unmarshal(raw, &text) == nil {
		msgs = append(msgs, map[string]any{"role": "user", "content": text})
		return json.Marshal(msgs)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, invalid("input", "input must be a string or a list of items")
	}
	for i, it := range items {
		var err error
		if msgs, err = addItem(msgs, fmt.Sprintf("input[%d]", i), it); err != nil {
			return nil, err
		}
	}
	return json.Marshal(msgs)
}
