package oaicompat

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"yakor/llm"
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
	// Tools, ToolChoice and ParallelToolCalls are the caller's tools, for
	// the model (checkTools).
	Tools             []llm.Tool      `json:"-"`
	ToolChoice        json.RawMessage `json:"-"`
	ParallelToolCalls *bool           `json:"-"`
	// ResponseFormat is passed to the model (text, json_object,
	// json_schema); nil for text.
	ResponseFormat json.RawMessage `json:"-"`
	LogProbs       bool            `json:"-"`
	TopLogProbs    int             `json:"-"`
}

// StreamOptions are a streamed request's options.
type StreamOptions struct {
	// IncludeUsage asks for a last chunk with the usage and no choices.
	IncludeUsage bool `json:"include_usage"`
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
	"tools", "tool_choice", "parallel_tool_calls", "top_logprobs", "store",
}

// refusals says why known OpenAI fields are refused.
var refusals = map[string]string{
	"functions":          "the deprecated functions are not supported: send them as tools",
	"function_call":      "the deprecated function_call is not supported: send tools and tool_choice",
	"logit_bias":         "Yakor does not pass token biases to the model",
	"audio":              "Yakor takes and writes text only",
	"modalities":         "Yakor takes and writes text only",
	"prediction":         "Yakor does not pass predicted outputs to the model",
	"reasoning_effort":   "Yakor does not pass reasoning settings to the model",
	"web_search_options": "Yakor does not search the web for a reply",
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
		checkNames, checkStream, checkSampling, checkStop, checkUnsupportedValues, checkTools, checkMessages,
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
// for what Yakor does not do (n other than 1, streamed log probabilities)
// and reads the response format and log probabilities, which go to the
// model.
func checkUnsupportedValues(r *ChatRequest, fields map[string]json.RawMessage) error {
	if r.N != nil && *r.N != 1 {
		return unsupported("n", "n must be 1: Yakor writes one reply per turn, which the conversation goes on from")
	}
	if raw, ok := fields["logprobs"]; ok {
		if err := json.Unmarshal(raw, &r.LogProbs); err != nil {
			return invalid("logprobs", "logprobs must be true or false")
		}
	}
	if raw, ok := fields["top_logprobs"]; ok {
		if err := json.Unmarshal(raw, &r.TopLogProbs); err != nil || r.TopLogProbs < 0 || r.TopLogProbs > 20 {
			return invalid("top_logprobs", "top_logprobs must be a whole number from 0 to 20")
		}
		if !r.LogProbs {
			return invalid("top_logprobs", "top_logprobs needs logprobs: true")
		}
	}
	if r.LogProbs && r.Stream {
		return unsupportedValue("logprobs", "logprobs is supported without stream only: Yakor does not pass streamed log probabilities")
	}
	if raw, ok := fields["store"]; ok {
		var store bool
		if err := json.Unmarshal(raw, &store); err != nil {
			return invalid("store", "store must be true or false")
		}
	}
	if raw, ok := fields["response_format"]; ok {
		rf, err := ResponseFormat("response_format", raw)
		if err != nil {
			return err
		}
		r.ResponseFormat = rf
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

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// MarshalJSON writes the request as a body that parses to it again.
func (r ChatRequest) MarshalJSON() ([]byte, error) {
	type plain ChatRequest // without this method
	b, err := json.Marshal(plain(r))
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	set := func(k string, v any) {
		if err == nil {
			m[k], err = json.Marshal(v)
		}
	}
	if r.Tools != nil {
		m["tools"] = chatToolsJSON(r.Tools)
	}
	if r.ToolChoice != nil {
		m["tool_choice"] = r.ToolChoice
	}
	if r.ParallelToolCalls != nil {
		set("parallel_tool_calls", *r.ParallelToolCalls)
	}
	if r.ResponseFormat != nil {
		m["response_format"] = r.ResponseFormat
	}
	if r.LogProbs {
		set("logprobs", true)
		set("top_logprobs", r.TopLogProbs)
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(m)
}
