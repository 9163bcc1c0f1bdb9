package oaicompat

import (
	"unicode/utf8"

	"yakor/llm"
	"yakor/turn"
)

// CompletionID is a reply's id: chatcmpl- and the turn's id, which
// GET /api/v1/turns/{id} shows the trace of.
func CompletionID(turnID string) string { return "chatcmpl-" + turnID }

// Completion is a finished turn as a chat.completion; model is the model
// the client named, created the reply's time (Unix seconds).
func Completion(o turn.Outcome, model string, created int64) ChatCompletion {
	msg := ResponseMessage{Role: "assistant", ToolCalls: toolCalls(o.ToolCalls, false)}
	if text := o.Text; text != "" || len(o.ToolCalls) == 0 {
		msg.Content = &text
	}
	return ChatCompletion{
		ID: CompletionID(o.TurnID), Object: ObjectCompletion, Created: created, Model: model,
		Choices: []Choice{{Message: msg, FinishReason: FinishReason(o.Usage), Logprobs: o.LogProbs}},
		Usage:   UsageOf(o),
	}
}

// toolCalls are calls in OpenAI's shape, with their indexes for a stream.
func toolCalls(calls []llm.ToolCall, indexed bool) []ToolCall {
	var out []ToolCall
	for i, c := range calls {
		tc := ToolCall{ID: c.ID, Type: "function", Function: FunctionCall{Name: c.Name, Arguments: c.Arguments}}
		if indexed {
			tc.Index = &i
		}
		out = append(out, tc)
	}
	return out
}

// FinishReason is OpenAI's finish_reason for a turn: "tool_calls" when the
// reply called the caller's tools, "length" when the model ran into
// max_tokens, "content_filter" when the server filtered the reply, else
// "stop" (also when the model did not say, as offline).
func FinishReason(u turn.Usage) string {
	switch u.FinishReason {
	case "length", "content_filter", "tool_calls":
		return u.FinishReason
	}
	return "stop"
}

// CharsPerToken is the ratio of the usage estimate: about right for
// English text; Cyrillic and code take more tokens per character.
const CharsPerToken = 4

// UsageOf is a turn's usage. The model server's token counts, summed over
// the turn's passes (a history search adds a pass, so the prompt is counted
// once per pass), are used when every pass reported them; otherwise, and
// for a replayed reply, which called no model, the counts are estimated
// at CharsPerToken characters a token (the prompt from the characters the
// turn sent, or the user's message for a replay) and Estimated says so.
func UsageOf(o turn.Outcome) Usage {
	u := o.Usage
	if u.Counted && !o.Replayed {
		return Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.PromptTokens + u.CompletionTokens}
	}
	prompt := u.PromptChars
	if o.Replayed || prompt == 0 {
		prompt = utf8.RuneCountInString(o.UserMessage.Content)
	}
	p, c := tokens(prompt), tokens(utf8.RuneCountInString(o.Reply.Content))
	return Usage{PromptTokens: p, CompletionTokens: c, TotalTokens: p + c, Estimated: true}
}

func tokens(chars int) int { return (chars + CharsPerToken - 1) / CharsPerToken }

// Stream makes the chunks of one streamed reply.
type Stream struct {
	id, model string
	created   int64
}

// NewStream starts the chunks of the turn's reply.
func NewStream(turnID, model string, created int64) *Stream {
	return &Stream{id: CompletionID(turnID), model: model, created: created}
}

func (s *Stream) chunk(d Delta, finish *string) Chunk {
	return Chunk{ID: s.id, Object: ObjectChunk, Created: s.created, Model: s.model, Choices: []ChunkChoice{{Delta: d, FinishReason: finish}}}
}

// Role is the first chunk: the assistant's role and empty content.
func (s *Stream) Role() Chunk {
	empty := ""
	return s.chunk(Delta{Role: "assistant", Content: &empty}, nil)
}

// Delta is a piece of the reply.
func (s *Stream) Delta(text string) Chunk { return s.chunk(Delta{Content: &text}, nil) }

// ToolCalls is the chunk of the reply's calls of the caller's tools, each
// whole, under its index.
func (s *Stream) ToolCalls(calls []llm.ToolCall) Chunk {
	return s.chunk(Delta{ToolCalls: toolCalls(calls, true)}, nil)
}

// Finish is the last chunk of the choice: an empty delta and the reason.
func (s *Stream) Finish(u turn.Usage) Chunk {
	reason := FinishReason(u)
	return s.chunk(Delta{}, &reason)
}

// Usage is the usage chunk (stream_options.include_usage): no choices.
func (s *Stream) Usage(o turn.Outcome) Chunk {
	u := UsageOf(o)
	return Chunk{ID: s.id, Object: ObjectChunk, Created: s.created, Model: s.model, Choices: []ChunkChoice{}, Usage: &u}
}
