package oaicompat

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"yakor/llm"
)

// Message is one message of a request. On the wire its content is a
// string or a list of parts: "text" parts, joined with newlines, and
// "image_url" parts (Images), which the stored text names.
type Message struct {
	Role    string
	Content string
	Name    string
	Images  []llm.Image
	// ToolCalls are an assistant message's calls; ToolCallID names the
	// call a tool message answers.
	ToolCalls  []llm.ToolCall
	ToolCallID string
}

func parseMessage(i int, raw json.RawMessage) (Message, error) {
	at := fmt.Sprintf("messages[%d]", i)
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return Message{}, invalid(at, "%s must be an object with a role and content", at)
	}
	for _, k := range sortedKeys(fields) {
		switch v := fields[k]; {
		case string(v) == "null":
			delete(fields, k)
		case k == "function_call":
			return Message{}, unsupported(at+"."+k, "%s.function_call is not supported: send tool_calls", at)
		case !slices.Contains([]string{"role", "content", "name", "tool_calls", "tool_call_id", "refusal"}, k):
			return Message{}, unsupported(at+"."+k, "unknown message field %q", k)
		}
	}
	var m Message
	if err := json.Unmarshal(fields["role"], &m.Role); err != nil || m.Role == "" {
		return Message{}, invalid(at+".role", "%s.role must be \"system\", \"developer\", \"user\", \"assistant\" or \"tool\"", at)
	}
	switch m.Role {
	case "system", "developer", "user", "assistant", "tool":
	case "function":
		return Message{}, unsupportedValue(at+".role", "function messages are not supported: send tool messages")
	default:
		return Message{}, invalid(at+".role", "unknown role %q: say \"system\", \"developer\", \"user\", \"assistant\" or \"tool\"", m.Role)
	}
	if err := parseMessageFields(at, fields, &m); err != nil {
		return Message{}, err
	}
	content, ok := fields["content"]
	if !ok {
		if m.Role == "assistant" && len(m.ToolCalls) > 0 {
			return m, nil // a reply that only called tools
		}
		return Message{}, missing(at+".content", "%s.content is required", at)
	}
	var err error
	if m.Content, m.Images, err = parseContent(at+".content", content, m.Role == "user"); err != nil {
		return Message{}, err
	}
	return m, nil
}

// parseMessageFields reads a message's name, tool calls and call id, each
// where its role takes it.
func parseMessageFields(at string, fields map[string]json.RawMessage, m *Message) error {
	if raw, ok := fields["name"]; ok {
		if err := json.Unmarshal(raw, &m.Name); err != nil || utf8.RuneCountInString(m.Name) > 200 || strings.ContainsFunc(m.Name, unicode.IsControl) {
			return invalid(at+".name", "%s.name must be a name of at most 200 characters", at)
		}
	}
	if raw, ok := fields["tool_calls"]; ok {
		if m.Role != "assistant" {
			return invalid(at+".tool_calls", "only assistant messages carry tool_calls")
		}
		calls, err := parseToolCalls(at+".tool_calls", raw)
		if err != nil {
			return err
		}
		m.ToolCalls = calls
	}
	raw, ok := fields["tool_call_id"]
	switch {
	case ok && m.Role != "tool":
		return invalid(at+".tool_call_id", "only tool messages carry tool_call_id")
	case ok:
		if err := json.Unmarshal(raw, &m.ToolCallID); err != nil || strings.TrimSpace(m.ToolCallID) == "" {
			return invalid(at+".tool_call_id", "%s.tool_call_id must name the call the message answers", at)
		}
	case m.Role == "tool":
		return missing(at+".tool_call_id", "%s.tool_call_id is required: it names the call the result answers", at)
	}
	return nil
}

// parseContent reads a string, or a list of parts: "text" parts, joined
// with newlines, and, when images are allowed, "image_url" parts, which go
// to the model as they are (the stored text names them: StoredText).
func parseContent(at string, raw json.RawMessage, images bool) (string, []llm.Image, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil, nil
	}
	var parts []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", nil, invalid(at, "%s must be a string or a list of content parts", at)
	}
	texts := make([]string, 0, len(parts))
	var imgs []llm.Image
	for j, p := range parts {
		pat := fmt.Sprintf("%s[%d]", at, j)
		var typ string
		if err := json.Unmarshal(p["type"], &typ); err != nil {
			return "", nil, invalid(pat+".type", "%s.type must be a string", pat)
		}
		switch {
		case typ == "text" || typ == "refusal":
			text, err := textPart(pat, typ, p)
			if err != nil {
				return "", nil, err
			}
			texts = append(texts, text)
		case typ == "image_url" && images:
			img, err := imagePart(pat, p)
			if err != nil {
				return "", nil, err
			}
			imgs = append(imgs, img)
		default:
			return "", nil, unsupportedValue(pat+".type", "content parts of type %q are not supported here: Yakor takes text, and images in user messages", typ)
		}
	}
	return strings.Join(texts, "\n"), imgs, nil
}

// textPart reads a text (or refusal) part.
func textPart(at, typ string, p map[string]json.RawMessage) (string, error) {
	for _, k := range sortedKeys(p) {
		if k != "type" && k != typ {
			return "", unsupported(at+"."+k, "the content part field %q is not supported", k)
		}
	}
	var text string
	if err := json.Unmarshal(p[typ], &text); err != nil {
		return "", invalid(at+"."+typ, "%s.%s must be a string", at, typ)
	}
	return text, nil
}

// imagePart reads an image_url part.
func imagePart(at string, p map[string]json.RawMessage) (llm.Image, error) {
	var v struct {
		URL    string `json:"url"`
		Detail string `json:"detail"`
	}
	if err := json.Unmarshal(p["image_url"], &v); err != nil || strings.TrimSpace(v.URL) == "" {
		return llm.Image{}, invalid(at+".image_url", "%s.image_url must be {\"url\": …}", at)
	}
	switch v.Detail {
	case "", "auto", "low", "high":
	default:
		return llm.Image{}, invalid(at+".image_url.detail", "detail must be \"auto\", \"low\" or \"high\"")
	}
	return llm.Image{URL: v.URL, Detail: v.Detail}, nil
}

// StoredText is the message's text as a thread stores it: with its images
// named ([image: …]) after it.
func (m Message) StoredText() string {
	parts := []string{}
	if m.Content != "" {
		parts = append(parts, m.Content)
	}
	for _, img := range m.Images {
		parts = append(parts, ImagePlaceholder(img.URL))
	}
	return strings.Join(parts, "\n")
}

// ImagePlaceholder is how a message's stored text names an image it
// carried: its URL, or for a data: URL its media type and size.
func ImagePlaceholder(url string) string {
	if rest, ok := strings.CutPrefix(url, "data:"); ok {
		media, _, _ := strings.Cut(rest, ";")
		media, _, _ = strings.Cut(media, ",")
		return fmt.Sprintf("[image: %s, %d KB inline]", cmp.Or(media, "data"), (len(url)+1023)/1024)
	}
	if r := []rune(url); len(r) > 300 {
		url = string(r[:300]) + "…"
	}
	return "[image: " + url + "]"
}

// MarshalJSON writes the message in OpenAI's shape: its text and images
// as parts when it has images.
func (m Message) MarshalJSON() ([]byte, error) {
	w := map[string]any{"role": m.Role, "content": m.Content}
	if len(m.Images) > 0 {
		var parts []map[string]any
		if m.Content != "" {
			parts = append(parts, map[string]any{"type": "text", "text": m.Content})
		}
		for _, img := range m.Images {
			u := map[string]string{"url": img.URL}
			if img.Detail != "" {
				u["detail"] = img.Detail
			}
			parts = append(parts, map[string]any{"type": "image_url", "image_url": u})
		}
		w["content"] = parts
	}
	if m.Name != "" {
		w["name"] = m.Name
	}
	if len(m.ToolCalls) > 0 {
		calls := make([]map[string]any, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			calls[i] = map[string]any{"id": c.ID, "type": "function", "function": map[string]string{"name": c.Name, "arguments": c.Arguments}}
		}
		w["tool_calls"] = calls
	}
	if m.ToolCallID != "" {
		w["tool_call_id"] = m.ToolCallID
	}
	return json.Marshal(w)
}
