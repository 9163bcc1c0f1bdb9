package oaicompat

import (
	"cmp"
	"fmt"
	"strings"
	"unicode/utf8"

	"yakor/history"
	"yakor/llm"
	"yakor/turn"
)

// Inputs is what a chat request asks of Yakor.
type Inputs struct {
	// Model is the model the client named.
	Model string
	// Turn is the newest user message with the sampling settings; the
	// caller sets its ClientID (from Idempotency-Key).
	Turn turn.Input
	// History is the messages before the turn, user and assistant, in
	// order: a new thread's history. A thread that exists keeps its own.
	History []history.NewMessage
	// SystemPrompt is the system and developer messages, joined by blank
	// lines: a new thread's system prompt.
	SystemPrompt string
	// Title is a new thread's title: the conversation's first user message,
	// on one line, cut to TitleRunes.
	Title string
	// User is the app's id for the end user the request is for: the user
	// field, or safety_identifier ("" when neither).
	User string
	// Conversation is the client's own key for the conversation:
	// metadata.conversation, else prompt_cache_key ("" when neither).
	Conversation string
	Stream       bool
	IncludeUsage bool
}

// TitleRunes bounds a new thread's title.
const TitleRunes = 80

// Inputs splits the request into Yakor's inputs. The turn is what follows
// the conversation's last reply: the newest user message (with a trailing
// assistant message as the reply's prefill), or the tool messages that
// answer the calls of the assistant message before them. max_completion_tokens
// wins over max_tokens when both are given. Errors are *RequestError.
func (r ChatRequest) Inputs() (Inputs, error) {
	in := Inputs{Model: r.Model, User: cmp.Or(r.User, r.SafetyIdentifier), Conversation: cmp.Or(r.Metadata["conversation"], r.PromptCacheKey), Stream: r.Stream, IncludeUsage: r.StreamOptions != nil && r.StreamOptions.IncludeUsage}
	var (
		system []string
		convo  []Message
		at     []int // convo's indexes in r.Messages
	)
	for i, m := range r.Messages {
		if m.Role == "system" || m.Role == "developer" {
			if strings.TrimSpace(m.Content) != "" {
				system = append(system, m.Content)
			}
			continue
		}
		convo, at = append(convo, m), append(at, i)
	}
	in.SystemPrompt = strings.Join(system, "\n\n")
	turnAt, err := splitTurn(convo, at, &in.Turn)
	if err != nil {
		return Inputs{}, err
	}
	for j, m := range convo[:turnAt] {
		nm, err := historyMessage(m, at[j])
		if err != nil {
			return Inputs{}, err
		}
		in.History = append(in.History, nm)
	}
	for _, m := range convo {
		if m.Role == "user" {
			in.Title = title(m.StoredText())
			break
		}
	}
	in.Turn.Tools = turn.Tools{Tools: r.Tools, Choice: r.ToolChoice, Parallel: r.ParallelToolCalls}
	in.Turn.Sampling = turn.Sampling{
		Temperature: r.Temperature, TopP: r.TopP, PresencePenalty: r.PresencePenalty, FrequencyPenalty: r.FrequencyPenalty,
		Stop: r.Stop, Seed: r.Seed, ResponseFormat: r.ResponseFormat, LogProbs: r.LogProbs, TopLogProbs: r.TopLogProbs,
	}
	if r.MaxTokens != nil {
		in.Turn.Sampling.MaxTokens = *r.MaxTokens
	}
	if r.MaxCompletionTokens != nil {
		in.Turn.Sampling.MaxTokens = *r.MaxCompletionTokens
	}
	return in, nil
}

// splitTurn finds the turn at the end of convo (the messages but system
// ones; at holds their indexes in the request) and fills t with it: the
// trailing tool results, or the newest user message and a prefill after
// it. It returns where the turn starts: what comes before is history.
func splitTurn(convo []Message, at []int, t *turn.Input) (int, error) {
	if len(convo) == 0 {
		return 0, missing("messages", "messages holds no user message: the newest user message is the turn")
	}
	end := len(convo)
	for end > 0 && convo[end-1].Role == "tool" {
		end--
	}
	if end < len(convo) {
		// Results alone answer the thread's last calls (a client that keeps
		// no history: previous_response_id); else they follow the calls.
		var calls []llm.ToolCall
		if end > 0 {
			if calls = convo[end-1].ToolCalls; len(calls) == 0 {
				return 0, invalid(fmt.Sprintf("messages[%d].role", at[end]), "tool messages must follow the assistant message whose tool_calls they answer")
			}
		}
		for _, m := range convo[end:] {
			t.ToolResults = append(t.ToolResults, turn.ToolResult{CallID: m.ToolCallID, Name: callName(calls, m.ToolCallID), Content: m.Content})
		}
		return end, nil
	}
	last := len(convo) - 1
	if convo[last].Role == "assistant" {
		if len(convo[last].ToolCalls) > 0 {
			return 0, invalid(fmt.Sprintf("messages[%d]", at[last]), "the conversation ends with tool calls: send their results as tool messages")
		}
		if last == 0 || convo[last-1].Role != "user" {
			return 0, unsupportedValue(fmt.Sprintf("messages[%d].role", at[last]), "a trailing assistant message (a prefill) must follow the user message it answers")
		}
		t.Prefill = convo[last].Content
		last--
	}
	u := convo[last]
	if u.Role != "user" {
		return 0, invalid(fmt.Sprintf("messages[%d].role", at[last]), "the newest message must be the user's, tool results, or a prefill after the user's")
	}
	if strings.TrimSpace(u.StoredText()) == "" {
		return 0, invalid(fmt.Sprintf("messages[%d].content", at[last]), "messages[%d].content is empty", at[last])
	}
	t.Content, t.Author, t.Images = u.StoredText(), u.Name, u.Images
	return last, nil
}

// callName is the name of the tool that call id called.
func callName(calls []llm.ToolCall, id string) string {
	for _, c := range calls {
		if c.ID == id {
			return c.Name
		}
	}
	return ""
}

// historyMessage is an earlier message of the request as a new thread
// stores it: tool calls and results with their meta, as a turn stores them.
func historyMessage(m Message, i int) (history.NewMessage, error) {
	switch {
	case m.Role == "tool":
		return turn.ToolResultMessage(turn.ToolResult{CallID: m.ToolCallID, Content: m.Content}, ""), nil
	case len(m.ToolCalls) > 0:
		return turn.ReplyMessage(m.Content, m.ToolCalls, ""), nil
	case strings.TrimSpace(m.StoredText()) == "":
		return history.NewMessage{}, invalid(fmt.Sprintf("messages[%d].content", i), "messages[%d].content is empty", i)
	}
	return history.NewMessage{Role: m.Role, Content: m.StoredText(), Author: m.Name}, nil
}

// title is text on one line, cut to TitleRunes.
func title(text string) string {
	t := strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(t) <= TitleRunes {
		return t
	}
	return strings.TrimSpace(string([]rune(t)[:TitleRunes-1])) + "…"
}
