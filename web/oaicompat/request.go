package oaicompat

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ChatRequest is a POST /v1/chat/completions body, as Yakor takes it.
type ChatRequest struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	Stream   bool      `json:"stream,omitempty"`
	// StreamOptions is allowed with Stream only.
	StreamOptions       *StreamOptions `json:"stream_options,omitempty"`
	Temperature         *float32       `json:"temperature,omitempty"`
	TopP                *float32       `json:"top_p,omitempty"`
	MaxTokens           *int           `json:"max_tokens,omitempty"`
	MaxCompletionTokens *int           `json:"max_completion_tokens,omitempty"`
	// Stop is one string or a list of up to 4 on the wire.
	Stop             []string `json:"stop,omitempty"`
	Seed             *int     `json:"seed,omitempty"`
	PresencePenalty  *float32 `json:"presence_penalty,omitempty"`
	FrequencyPenalty *float32 `json:"frequency_penalty,omitempty"`
	// User and SafetyIdentifier (its newer name) are the app's id for the
	// end user the request is for (see Inputs.User).
	User             string `json:"user,omitempty"`
	SafetyIdentifier string `json:"safety_identifier,omitempty"`
	// Metadata's "conversation" and PromptCacheKey name the client's
	// conversation (see Inputs.Conversation); other metadata is taken and
	// not kept.
	Metadata       map[string]string `json:"metadata,omitempty"`
	PromptCacheKey string            `json:"prompt_cache_key,omitempty"`
	// N must be 1 when given.
	N *int `json:"n,omitempty"`
}

// StreamOptions are a streamed request's options.
type StreamOptions struct {
	// IncludeUsage asks for a last chunk with the usage and no choices.
	IncludeUsage bool `json:"include_usage"`
}

// Message is one message of a request. On the wire its content is a
// string or a list of parts; Yakor takes "text" parts only, joined with
// newlines.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Limits of a request's values (OpenAI's own ranges, and Yakor's longest
// thread key).
const (
	MaxStop     = 4
	MaxUserLen  = 300
	MaxMetadata = 16
)

// accepted are the fields Yakor takes; every other field is refused.
var accepted = []string{
	"model", "messages", "stream", "stream_options", "temperature", "top_p", "max_tokens",
	"max_completion_tokens", "stop", "seed", "presence_penalty", "frequency_penalty", "user", "n",
	"response_format", "logprobs", "safety_identifier", "metadata", "prompt_cache_key",
}

// refusals says why known OpenAI fields are refused.
var refusals = map[string]string{
	"tools":               "Yakor does not offer the caller's tools to the model (the model's only tool is Yakor's own history search)",
	"tool_choice":         "Yakor does not offer the caller's tools to the model",
	"parallel_tool_calls": "Yakor does not offer the caller's tools to the model",
	"functions":           "Yakor does not offer the caller's functions to the model",
	"function_call":       "Yakor does not offer the caller's functions to the model",
	"top_logprobs":        "Yakor does not return log probabilities",
	"logit_bias":          "Yakor does not pass token biases to the model",
	"audio":               "Yakor takes and writes text only",
	"modalities":          "Yakor takes and writes text only",
	"prediction":          "Yakor does not pass predicted outputs to the model",
	"reasoning_effort":    "Yakor does not pass reasoning settings to the model",
	"web_search_options":  "Yakor does not search the web for a reply",
	"store":               "Yakor stores every conversation in its own memory and nothing with the model server",
}

// ParseChatRequest parses a chat request body (valid UTF-8). It refuses,
// naming the field, anything Yakor would otherwise have to ignore: an
// unknown field, tools and functions, response formats other than text,
// log probabilities, n other than 1, audio, and message content other than
// text; and values out of OpenAI's ranges. JSON null counts as absent. The
// errors are *RequestError.
func ParseChatRequest(body []byte) (ChatRequest, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil || fields == nil {
		return ChatRequest{}, invalid("", "the request body must be a JSON object")
	}
	for k, v := range fields {
		if string(v) == "null" {
			delete(fields, k)
		}
	}
	for _, k := range sortedKeys(fields) {
		if slices.Contains(accepted, k) {
			continue
		}
		if why, ok := refusals[k]; ok {
			return ChatRequest{}, unsupported(k, "the parameter %q is not supported: %s", k, why)
		}
		return ChatRequest{}, unsupported(k, "unknown parameter %q: Yakor refuses parameters it does not support rather than ignore them", k)
	}
	var r ChatRequest
	d := decoder{fields: fields}
	d.field("model", &r.Model, "a string")
	d.field("stream", &r.Stream, "true or false")
	d.field("temperature", &r.Temperature, "a number")
	d.field("top_p", &r.TopP, "a number")
	d.field("max_tokens", &r.MaxTokens, "a whole number")
	d.field("max_completion_tokens", &r.MaxCompletionTokens, "a whole number")
	d.field("seed", &r.Seed, "a whole number")
	d.field("presence_penalty", &r.PresencePenalty, "a number")
	d.field("frequency_penalty", &r.FrequencyPenalty, "a number")
	d.field("user", &r.User, "a string")
	d.field("safety_identifier", &r.SafetyIdentifier, "a string")
	d.field("metadata", &r.Metadata, "an object of strings")
	d.field("prompt_cache_key", &r.PromptCacheKey, "a string")
	d.field("n", &r.N, "a whole number")
	if d.err != nil {
		return ChatRequest{}, d.err
	}
	for _, check := range []func(*ChatRequest, map[string]json.RawMessage) error{
		checkNames, checkStream, checkSampling, checkStop, checkUnsupportedValues, checkMessages,
	} {
		if err := check(&r, fields); err != nil {
			return ChatRequest{}, err
		}
	}
	return r, nil
}

// decoder decodes fields one by one, keeping the first error.
type decoder struct {
	fields map[string]json.RawMessage
	err    error
}

func (d *decoder) field(name string, v any, want string) {
	raw, ok := d.fields[name]
	if !ok || d.err != nil {
		return
	}
	if err := json.Unmarshal(raw, v); err != nil {
		d.err = invalid(name, "%s must be %s", name, want)
	}
}

func checkNames(r *ChatRequest, _ map[string]json.RawMessage) error {
	if strings.TrimSpace(r.Model) == "" {
		return missing("model", "model is required: name one that GET /v1/models lists")
	}
	for _, f := range []struct{ name, value string }{
		{"user", r.User}, {"safety_identifier", r.SafetyIdentifier}, {"prompt_cache_key", r.PromptCacheKey}, {"metadata.conversation", r.Metadata["conversation"]},
	} {
		if n := utf8.RuneCountInString(f.value); n > MaxUserLen {
			return invalid(f.name, "%s is %d characters long; the limit is %d", f.name, n, MaxUserLen)
		}
		if strings.ContainsFunc(f.value, unicode.IsControl) {
			return invalid(f.name, "%s contains a control character", f.name)
		}
	}
	if r.User != "" && r.SafetyIdentifier != "" && r.User != r.SafetyIdentifier {
		return invalid("safety_identifier", "user and safety_identifier name different end users; send one")
	}
	if len(r.Metadata) > MaxMetadata {
		return invalid("metadata", "metadata has %d keys; the limit is %d", len(r.Metadata), MaxMetadata)
	}
	return nil
}

func checkStream(r *ChatRequest, fields map[string]json.RawMessage) error {
	raw, ok := fields["stream_options"]
	if !ok {
		return nil
	}
	if !r.Stream {
		return invalid("stream_options", "stream_options is only allowed with stream: true")
	}
	var opts map[string]json.RawMessage
	if err := json.Unmarshal(raw, &opts); err != nil {
		return invalid("stream_options", "stream_options must be an object")
	}
	r.StreamOptions = &StreamOptions{}
	for k, v := range opts {
		if k != "include_usage" {
			return unsupported("stream_options."+k, "the stream option %q is not supported; only include_usage is", k)
		}
		if string(v) == "null" {
			continue
		}
		if err := json.Unmarshal(v, &r.StreamOptions.IncludeUsage); err != nil {
			return invalid("stream_options.include_usage", "stream_options.include_usage must be true or false")
		}
	}
	return nil
}

func checkSampling(r *ChatRequest, _ map[string]json.RawMessage) error {
	for _, f := range []struct {
		name     string
		v        *float32
		min, max float32
	}{
		{"temperature", r.Temperature, 0, 2},
		{"top_p", r.TopP, 0, 1},
		{"presence_penalty", r.PresencePenalty, -2, 2},
		{"frequency_penalty", r.FrequencyPenalty, -2, 2},
	} {
		if f.v != nil && (*f.v < f.min || *f.v > f.max) {
			return invalid(f.name, "%s must be between %g and %g", f.name, f.min, f.max)
		}
	}
	for _, f := range []struct {
		name string
		v    *int
	}{{"max_tokens", r.MaxTokens}, {"max_completion_tokens", r.MaxCompletionTokens}} {
		if f.v != nil && *f.v < 1 {
			return invalid(f.name, "%s must be at least 1", f.name)
		}
	}
	return nil
}

func checkStop(r *ChatRequest, fields map[string]json.RawMessage) error {
	raw, ok := fields["stop"]
	if !ok {
		return nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		r.Stop = []string{one}
	} else if err := json.Unmarshal(raw, &r.Stop); err != nil {
		return invalid("stop", "stop must be a string or a list of strings")
	}
	if len(r.Stop) == 0 {
		r.Stop = nil // an empty list is no stop sequence, as absent
	}
	if len(r.Stop) > MaxStop {
		return invalid("stop", "stop holds %d sequences; the limit is %d", len(r.Stop), MaxStop)
	}
	for _, s := range r.Stop {
		if s == "" {
			return invalid("stop", "a stop sequence is empty")
		}
	}
	return nil
}

// checkUnsupportedValues refuses the values of accepted fields that ask
// for what Yakor does not do: n other than 1, log probabilities, a
// response format other than text.
func checkUnsupportedValues(r *ChatRequest, fields map[string]json.RawMessage) error {
	if r.N != nil && *r.N != 1 {
		return unsupported("n", "n must be 1: Yakor writes one reply per turn")
	}
	if raw, ok := fields["logprobs"]; ok {
		var on bool
		if err := json.Unmarshal(raw, &on); err != nil {
			return invalid("logprobs", "logprobs must be true or false")
		}
		if on {
			return unsupported("logprobs", "the parameter \"logprobs\" is not supported: Yakor does not return log probabilities")
		}
	}
	if raw, ok := fields["response_format"]; ok {
		var rf map[string]json.RawMessage
		if err := json.Unmarshal(raw, &rf); err != nil {
			return invalid("response_format", "response_format must be an object")
		}
		if len(rf) != 1 || string(rf["type"]) != `"text"` {
			return unsupported("response_format", "only response_format {\"type\": \"text\"} is supported: Yakor does not constrain the model's output to JSON")
		}
	}
	return nil
}

func checkMessages(r *ChatRequest, fields map[string]json.RawMessage) error {
	raw, ok := fields["messages"]
	if !ok {
		return missing("messages", "messages is required: the newest user message is the turn")
	}
	var msgs []json.RawMessage
	if err := json.Unmarshal(raw, &msgs); err != nil {
		return invalid("messages", "messages must be a list of messages")
	}
	if len(msgs) == 0 {
		return missing("messages", "messages is empty: the newest user message is the turn")
	}
	r.Messages = make([]Message, len(msgs))
	for i, m := range msgs {
		var err error
		if r.Messages[i], err = parseMessage(i, m); err != nil {
			return err
		}
	}
	return nil
}

func parseMessage(i int, raw json.RawMessage) (Message, error) {
	at := fmt.Sprintf("messages[%d]", i)
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return Message{}, invalid(at, "%s must be an object with a role and content", at)
	}
	for _, k := range sortedKeys(fields) {
		v := fields[k]
		switch {
		case k == "role" || k == "content" || string(v) == "null":
		case k == "tool_calls" || k == "function_call" || k == "tool_call_id":
			return Message{}, unsupported(at+"."+k, "%s.%s is not supported: Yakor does not offer the caller's tools to the model", at, k)
		case k == "name":
			return Message{}, unsupported(at+".name", "%s.name is not supported: a message's speaker is its role", at)
		default:
			return Message{}, unsupported(at+"."+k, "unknown message field %q", k)
		}
	}
	var m Message
	if err := json.Unmarshal(fields["role"], &m.Role); err != nil || m.Role == "" {
		return Message{}, invalid(at+".role", "%s.role must be \"system\", \"developer\", \"user\" or \"assistant\"", at)
	}
	switch m.Role {
	case "system", "developer", "user", "assistant":
	case "tool", "function":
		return Message{}, unsupportedValue(at+".role", "%s messages are not supported: Yakor does not offer the caller's tools to the model", m.Role)
	default:
		return Message{}, invalid(at+".role", "unknown role %q: say \"system\", \"developer\", \"user\" or \"assistant\"", m.Role)
	}
	content, ok := fields["content"]
	if !ok || string(content) == "null" {
		return Message{}, missing(at+".content", "%s.content is required", at)
	}
	var err error
	if m.Content, err = parseContent(at+".content", content); err != nil {
		return Message{}, err
	}
	return m, nil
}

// parseContent reads a string, or a list of parts whose "text" parts it
// joins with newlines; any other part is refused.
func parseContent(at string, raw json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", invalid(at, "%s must be a string or a list of content parts", at)
	}
	texts := make([]string, 0, len(parts))
	for j, p := range parts {
		pat := fmt.Sprintf("%s[%d]", at, j)
		var typ string
		if err := json.Unmarshal(p["type"], &typ); err != nil {
			return "", invalid(pat+".type", "%s.type must be a string", pat)
		}
		if typ != "text" {
			return "", unsupportedValue(pat+".type", "content parts of type %q are not supported: Yakor takes text only", typ)
		}
		for _, k := range sortedKeys(p) {
			if k != "type" && k != "text" {
				return "", unsupported(pat+"."+k, "the content part field %q is not supported", k)
			}
		}
		var text string
		if err := json.Unmarshal(p["text"], &text); err != nil {
			return "", invalid(pat+".text", "%s.text must be a string", pat)
		}
		texts = append(texts, text)
	}
	return strings.Join(texts, "\n"), nil
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
