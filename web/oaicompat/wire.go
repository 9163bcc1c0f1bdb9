// Package oaicompat is the OpenAI-compatible front door's translation
// layer: the wire types of OpenAI's Chat Completions and Models APIs, and
// pure conversions between them and Yakor's own inputs and outcomes. It
// parses a request into a turn (refusing, by name, every field Yakor would
// otherwise ignore), and turns a finished turn into a chat.completion and a
// streamed one into chat.completion.chunk values. It does no I/O: the web
// package's handlers and SSE writer use it.
package oaicompat

import "encoding/json"

// Object names of OpenAI's responses.
const (
	ObjectCompletion = "chat.completion"
	ObjectChunk      = "chat.completion.chunk"
	ObjectList       = "list"
	ObjectModel      = "model"
)

// ChatCompletion is a non-streamed reply.
type ChatCompletion struct {
	ID      string   `json:"id"`
	Object  string   `json:"object"`
	Created int64    `json:"created"`
	Model   string   `json:"model"`
	Choices []Choice `json:"choices"`
	Usage   Usage    `json:"usage"`
}

// Choice is the one choice of a reply (n is always 1).
type Choice struct {
	Index        int             `json:"index"`
	Message      ResponseMessage `json:"message"`
	FinishReason string          `json:"finish_reason"`
	// Logprobs are the model server's, when asked for; else null.
	Logprobs json.RawMessage `json:"logprobs"`
}

// ResponseMessage is the assistant's reply: its text (null when it only
// called tools) and its calls of the caller's tools.
type ResponseMessage struct {
	Role      string     `json:"role"`
	Content   *string    `json:"content"`
	Refusal   *string    `json:"refusal"` // always null
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
}

// ToolCall is a call of one of the caller's tools; Index is set in
// streamed deltas only.
type ToolCall struct {
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall is the function a tool call calls, with its arguments
// (JSON text).
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Usage is a reply's size in tokens. Estimated is Yakor's addition: true
// when the model server did not count the tokens (the offline model, a
// server that does not report usage, a pass cut short by a history search,
// a replayed reply) and the counts are estimated from characters.
type Usage struct {
	PromptTokens     int  `json:"prompt_tokens"`
	CompletionTokens int  `json:"completion_tokens"`
	TotalTokens      int  `json:"total_tokens"`
	Estimated        bool `json:"estimated,omitempty"`
}

// Chunk is one event of a streamed reply.
type Chunk struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []ChunkChoice `json:"choices"`
	// Usage is set on the usage chunk only (stream_options.include_usage),
	// whose choices are empty.
	Usage *Usage `json:"usage,omitempty"`
}

// ChunkChoice is the one choice of a chunk.
type ChunkChoice struct {
	Index        int       `json:"index"`
	Delta        Delta     `json:"delta"`
	FinishReason *string   `json:"finish_reason"`
	Logprobs     *struct{} `json:"logprobs"` // always null
}

// Delta is what a chunk adds to the reply.
type Delta struct {
	Role      string     `json:"role,omitempty"`
	Content   *string    `json:"content,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
}

// Model is one entry of GET /v1/models.
type Model struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

// ModelList is GET /v1/models's answer.
type ModelList struct {
	Object string  `json:"object"`
	Data   []Model `json:"data"`
}

// Models lists names as models created at created (Unix seconds), owned
// by Yakor.
func Models(names []string, created int64) ModelList {
	l := ModelList{Object: ObjectList, Data: []Model{}}
	for _, n := range names {
		l.Data = append(l.Data, Model{ID: n, Object: ObjectModel, Created: created, OwnedBy: "yakor"})
	}
	return l
}

// Text is the message's text, "" when it has none.
func (m ResponseMessage) Text() string {
	if m.Content == nil {
		return ""
	}
	return *m.Content
}
