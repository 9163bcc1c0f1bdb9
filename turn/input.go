package turn

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"yakor"
	"yakor/history"
	"yakor/llm"
)

// Input is a user's message for a turn, or the caller's results of the
// tools the last reply called.
type Input struct {
	Content  string
	ClientID string // optional; a retried send with the same id answers once
	// Author is the speaker's name: stored with the message, and sent to
	// the model as its name.
	Author string
	// Images go to the model with this message (Content names them for
	// the thread: images are not stored).
	Images []llm.Image
	// ToolResults, instead of Content, answer the tool calls of the
	// thread's last tool-calling reply: stored as tool messages (once per
	// call), and the model answers from them.
	ToolResults []ToolResult
	// Prefill is the start of the reply, written by the caller: the model
	// goes on from it, and the stored reply holds both.
	Prefill string
	// Tools are the caller's, offered to the model with Yakor's search.
	Tools Tools
	// Sampling is passed to each of the turn's model calls.
	Sampling Sampling
	// Link stores the turn's messages linked into their client's
	// conversation (history.Chain).
	Link Link
}

// Link is how a turn's messages join their client's conversation.
type Link struct {
	// Prev is the link of the client's message before the turn
	// (history.Genesis for the first); nil links nothing.
	Prev []byte
	// RegenerateBefore answers anew a message sent again whose answer was
	// stored before this time (a client's regenerate); a later answer is
	// replayed (a retry that waited for the first). Zero: always replayed.
	RegenerateBefore time.Time
}

// Sampling is how the model writes a turn's reply; zero values leave each
// setting to the model server (the offline model ignores them all).
type Sampling struct {
	MaxTokens        int // bounds each model call of the turn, not their sum
	Temperature      *float32
	TopP             *float32
	PresencePenalty  *float32
	FrequencyPenalty *float32
	Stop             []string
	Seed             *int
	// ResponseFormat is OpenAI's response_format; a JSON format turns off
	// the search marker and the memory scrubber, which would break JSON.
	ResponseFormat json.RawMessage
	LogProbs       bool
	TopLogProbs    int
}

// request is a model request of msgs with s's settings.
func (s Sampling) request(msgs []llm.Message) llm.Request {
	return llm.Request{Messages: msgs, MaxTokens: s.MaxTokens, Temperature: s.Temperature, TopP: s.TopP,
		PresencePenalty: s.PresencePenalty, FrequencyPenalty: s.FrequencyPenalty, Stop: s.Stop, Seed: s.Seed,
		ResponseFormat: s.ResponseFormat, LogProbs: s.LogProbs, TopLogProbs: s.TopLogProbs}
}

// JSON reports whether the reply must be JSON (response_format json_object
// or json_schema).
func (s Sampling) JSON() bool {
	var rf struct {
		Type string `json:"type"`
	}
	return len(s.ResponseFormat) > 0 && json.Unmarshal(s.ResponseFormat, &rf) == nil && strings.HasPrefix(rf.Type, "json")
}

// validate checks the input before anything is looked up or stored: a
// message, or tool results, within the size limit.
func (t *turnRun) validate() error {
	in, limit := t.in, t.e.cfg.MaxMessageChars
	if len(in.ToolResults) == 0 {
		return history.ValidateContent(in.Content, limit)
	}
	if in.Content != "" {
		return yakor.Errorf(yakor.EINVALID, "a turn takes a message or tool results, not both")
	}
	for i, r := range in.ToolResults {
		if strings.TrimSpace(r.CallID) == "" {
			return yakor.Errorf(yakor.EINVALID, "tool result %d names no tool call", i+1)
		}
		if n := utf8.RuneCountInString(r.Content); n > limit {
			return yakor.Errorf(yakor.ETOOLARGE, "tool result %d is %d characters long; the limit is %d", i+1, n, limit)
		}
		if err := history.ValidateContent("x"+r.Content, 0); err != nil {
			return err
		}
	}
	return nil
}

// toolCalls finds the reply whose tool calls results answer: the thread's
// last tool-calling reply, which must have made every call they name.
func (e *Engine) toolCalls(ctx context.Context, scope yakor.Scope, results []ToolResult) (history.Message, error) {
	m, ok, err := e.history.LastToolCalls(ctx, scope)
	if err != nil {
		return history.Message{}, err
	}
	if !ok {
		return history.Message{}, yakor.Errorf(yakor.EINVALID, "tool results answer tool calls, and this conversation's last replies called no tool")
	}
	ids := make([]string, len(m.Meta.ToolCalls))
	for i, c := range m.Meta.ToolCalls {
		ids[i] = c.ID
	}
	for _, r := range results {
		if !slices.Contains(ids, r.CallID) {
			return history.Message{}, yakor.Errorf(yakor.EINVALID, "the tool result for %q answers no call of the conversation's last tool-calling reply (its calls: %s)", r.CallID, strings.Join(ids, ", "))
		}
	}
	return m, nil
}

// toolClientID is a tool result's client id: one per call of the reply,
// so that a result sent again is stored once.
func toolClientID(reply int64, callID string) string {
	id := fmt.Sprintf("tool:%d:%s", reply, callID)
	if utf8.RuneCountInString(id) > 200 {
		id = string([]rune(id)[:200])
	}
	return id
}
