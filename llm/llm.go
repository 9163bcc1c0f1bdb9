// Package llm gives Yakor access to language models: chat completions,
// streamed or not, and text embeddings.
//
// Two providers share one method set. [OpenAI] speaks to any
// OpenAI-compatible server (OpenAI, Ollama, vLLM, llama.cpp, LM Studio) with
// per-attempt timeouts and retries that honour Retry-After. [Offline] needs
// nothing: its chat reply says plainly that no language model is configured
// and quotes the earlier message that best matches the question
// ([IsOfflineReply] recognises that wording, which memory must not keep),
// and its embeddings are hashed word and character 3-gram features. Both are
// deterministic where they can be, and both report every failure of a model
// call as an [*Error].
//
// The package declares no interfaces: each consumer declares the one or two
// methods it calls, and go-openai's types never leave this package.
package llm

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Message is one chat message of a request.
type Message struct {
	// Role is "system", "user", "assistant" or "tool".
	Role string
	// Content is the message's text.
	Content string
	// ToolCalls are the calls an assistant message made.
	ToolCalls []ToolCall
	// ToolCallID names the call a "tool" message answers.
	ToolCallID string
	// Name is the speaker's name, for servers that take one.
	Name string
	// Images are pictures sent with the message's text (a user's message).
	Images []Image
}

// Image is a picture a message carries: a URL or a data: URL, and the
// detail the model should see it in ("", "low", "high", "auto").
type Image struct {
	URL    string
	Detail string
}

// Tool is a function the model may call, for servers that support tools.
type Tool struct {
	Name        string
	Description string
	// Parameters is the arguments' JSON Schema.
	Parameters json.RawMessage
	// Strict asks the server to hold the arguments to the schema.
	Strict bool
}

// ToolCall is one call of a tool by the model.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // JSON
}

// Request is one chat request.
type Request struct {
	// Messages are sent in order; the newest "user" message is the question.
	Messages []Message
	// MaxTokens bounds the reply's length; 0 leaves it to the server.
	MaxTokens int
	// Temperature sets the sampling temperature; nil leaves it to the server.
	// Reasoning models (o1, o3, o4, gpt-5 and later) keep their own.
	Temperature *float32
	// TopP sets nucleus sampling; nil leaves it to the server. Reasoning
	// models keep their own.
	TopP *float32
	// PresencePenalty and FrequencyPenalty penalize repeated tokens; nil
	// leaves them to the server. Reasoning models keep their own.
	PresencePenalty  *float32
	FrequencyPenalty *float32
	// Stop lists sequences that end the reply where the model writes them.
	Stop []string
	// Seed asks the server for repeatable sampling, where it supports it.
	Seed *int
	// Tools are offered to the model; the offline provider ignores them, as
	// it ignores every sampling setting above.
	Tools []Tool
	// ToolChoice and ParallelToolCalls are OpenAI's, passed as they are
	// (nil: the server's default).
	ToolChoice        json.RawMessage
	ParallelToolCalls *bool
	// ResponseFormat is OpenAI's response_format ({"type": "json_object"},
	// {"type": "json_schema", "json_schema": {…}}), nil for text.
	ResponseFormat json.RawMessage
	// LogProbs asks for the reply's log probabilities, TopLogProbs for that
	// many alternatives per token.
	LogProbs    bool
	TopLogProbs int
	// MaxReplyChars cuts a streamed reply at that many characters: the
	// stream is closed and the result says "length" and Truncated. 0 cuts
	// nothing.
	MaxReplyChars int
}

// Result describes a finished chat call.
type Result struct {
	// Text is the whole reply.
	Text string
	// Provider is "openai" or "offline".
	Provider string
	// Model is the model that answered, as the server names it when it does.
	Model string
	// PromptTokens is the prompt's size in tokens, 0 when unknown.
	PromptTokens int
	// CompletionTokens is the reply's size in tokens, 0 when unknown.
	CompletionTokens int
	// FinishReason is why the model stopped, as the server says it ("stop",
	// "length", "tool_calls", "content_filter"), "" when unknown (offline).
	FinishReason string
	// Attempts is how many HTTP attempts were made (1 for offline).
	Attempts int
	// ToolCalls are the tools the model called, in order.
	ToolCalls []ToolCall
	// LogProbs are the reply's log probabilities as the server sent them
	// (OpenAI's choice logprobs object), when asked for and not streamed.
	LogProbs json.RawMessage
	// Truncated reports that the reply was cut at MaxReplyChars.
	Truncated bool
}

// Error is returned for every failure of a model call. Use errors.As to read
// it; Unwrap gives the underlying cause (context.Canceled,
// context.DeadlineExceeded for timeouts, or the server's error).
type Error struct {
	// Provider is "openai" or "offline".
	Provider string
	// Model is the configured model.
	Model string
	// Server is the server's base URL, "" for offline.
	Server string
	// Status is the HTTP status of the failed response, 0 if there was none.
	Status int
	// Timeout reports that the per-attempt timeout or the caller's deadline
	// expired.
	Timeout bool
	// Err is the cause.
	Err error
}

// Error names the model and server, then the status and the cause, e.g.
// `model "gpt-4o-mini" at http://127.0.0.1:1234/v1: status 500: upstream exploded`.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "model %q", e.Model)
	if e.Server != "" {
		b.WriteString(" at ")
		b.WriteString(e.Server)
	}
	b.WriteString(": ")
	if e.Status != 0 {
		fmt.Fprintf(&b, "status %d: ", e.Status)
	}
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	} else {
		b.WriteString("failed")
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// timeoutError is the cause of an *Error whose Timeout is set. It matches
// context.DeadlineExceeded with errors.Is.
type timeoutError struct {
	after time.Duration // 0 when the caller's deadline expired
	err   error
}

func (e *timeoutError) Error() string {
	if e.after > 0 {
		return "timed out after " + e.after.String()
	}
	if e.err != nil {
		return "timed out: " + e.err.Error()
	}
	return "timed out"
}

func (e *timeoutError) Unwrap() error { return e.err }

// brokenError is the cause of an *Error for a stream that failed after text
// had been passed on; such a stream is never retried.
type brokenError struct{ err error }

func (e *brokenError) Error() string { return "stream broken: " + e.err.Error() }

func (e *brokenError) Unwrap() error { return e.err }

// callbackError carries the error returned by a Stream callback.
type callbackError struct{ err error }

func (e *callbackError) Error() string { return e.err.Error() }

func (e *callbackError) Unwrap() error { return e.err }

// emit passes each non-empty piece of a reply to fn, wrapping a refusal as a
// callbackError.
func emit(fn func(string) error, delta string) error {
	if delta == "" {
		return nil
	}
	if err := fn(delta); err != nil {
		return &callbackError{err: err}
	}
	return nil
}
