package oaicompat

import (
	"encoding/json"
	"strings"
)

// inputItem is one item of a Responses input, of any type.
type inputItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Output    json.RawMessage `json:"output"`
}

// addItem adds one input item to msgs as Chat Completions messages: a
// message as itself; a function call to the assistant message before it
// (or a new one), as Chat Completions groups the calls of a reply; a
// function call's output as a tool message.
func addItem(msgs []map[string]any, at string, raw json.RawMessage) ([]map[string]any, error) {
	var it inputItem
	if err := json.Unmarshal(raw, &it); err != nil {
		return nil, invalid(at, "%s must be an item object", at)
	}
	switch {
	case it.Type == "message" || (it.Type == "" && it.Role != ""):
		content, err := itemContent(at+".content", it.Content)
		if err != nil {
			return nil, err
		}
		return append(msgs, map[string]any{"role": it.Role, "content": content}), nil
	case it.Type == "function_call":
		if it.CallID == "" || it.Name == "" {
			return nil, missing(at+".call_id", "%s needs a call_id and a name", at)
		}
		call := map[string]any{"id": it.CallID, "type": "function", "function": map[string]string{"name": it.Name, "arguments": it.Arguments}}
		if n := len(msgs); n > 0 && msgs[n-1]["role"] == "assistant" {
			calls, _ := msgs[n-1]["tool_calls"].([]any)
			msgs[n-1]["tool_calls"] = append(calls, call)
			return msgs, nil
		}
		return append(msgs, map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{call}}), nil
	case it.Type == "function_call_output":
		if it.CallID == "" {
			return nil, missing(at+".call_id", "%s.call_id is required", at)
		}
		output, err := itemContent(at+".output", it.Output)
		if err != nil {
			return nil, err
		}
		return append(msgs, map[string]any{"role": "tool", "tool_call_id": it.CallID, "content": output}), nil
	}
	return nil, unsupportedValue(at+".type", "input items of type %q are not supported: Yakor takes messages, function calls and their outputs", it.Type)
}

// itemContent is an item's content as Chat Completions content: a string,
// or parts (input_text and output_text as text, input_image as
// image_url).
func itemContent(at string, raw json.RawMessage) (any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return nil, invalid(at, "%s must be a string or a list of content parts", at)
	}
	out := make([]map[string]any, 0, len(parts))
	for _, p := range parts {
		var typ string
		_ = json.Unmarshal(p["type"], &typ)
		switch typ {
		case "input_text", "output_text", "text", "refusal":
			var text string
			key := "text"
			if typ == "refusal" {
				key = "refusal"
			}
			_ = json.Unmarshal(p[key], &text)
			out = append(out, map[string]any{"type": "text", "text": text})
		case "input_image":
			var url, detail string
			_ = json.Unmarshal(p["image_url"], &url)
			_ = json.Unmarshal(p["detail"], &detail)
			img := map[string]any{"url": url}
			if detail != "" {
				img["detail"] = detail
			}
			out = append(out, map[string]any{"type": "image_url", "image_url": img})
		default:
			return nil, unsupportedValue(at, "content parts of type %q are not supported: Yakor takes text and images", strings.TrimSpace(typ))
		}
	}
	return out, nil
}
