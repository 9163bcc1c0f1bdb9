package oaicompat

import (
	"cmp"
	"fmt"
	"strings"
	"unicode/utf8"

	"yakor/history"
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

// Inputs splits the request into Yakor's inputs. The newest user message is
// the turn; only system and developer messages may follow it (a trailing
// assistant message, a prefill, is refused). max_completion_tokens wins over
// max_tokens when both are given. Errors are *RequestError.
func (r ChatRequest) Inputs() (Inputs, error) {
	turnAt := -1
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			turnAt = i
			break
		}
	}
	if turnAt < 0 {
		return Inputs{}, missing("messages", "messages holds no user message: the newest user message is the turn")
	}
	in := Inputs{Model: r.Model, User: cmp.Or(r.User, r.SafetyIdentifier), Conversation: cmp.Or(r.Metadata["conversation"], r.PromptCacheKey), Stream: r.Stream, IncludeUsage: r.StreamOptions != nil && r.StreamOptions.IncludeUsage}
	var system []string
	for i, m := range r.Messages {
		at := fmt.Sprintf("messages[%d]", i)
		switch {
		case m.Role == "system" || m.Role == "developer":
			if strings.TrimSpace(m.Content) != "" {
				system = append(system, m.Content)
			}
			continue
		case i > turnAt:
			return Inputs{}, unsupportedValue(at+".role", "the newest message must be the user's, which Yakor answers: a trailing %s message (a prefill) is not supported", m.Role)
		case strings.TrimSpace(m.Content) == "":
			return Inputs{}, invalid(at+".content", "%s.content is empty", at)
		case in.Title == "" && m.Role == "user":
			in.Title = title(m.Content)
		}
		if i < turnAt {
			in.History = append(in.History, history.NewMessage{Role: m.Role, Content: m.Content})
		}
	}
	in.SystemPrompt = strings.Join(system, "\n\n")
	in.Turn = turn.Input{Content: r.Messages[turnAt].Content, Sampling: turn.Sampling{
		Temperature: r.Temperature, TopP: r.TopP, PresencePenalty: r.PresencePenalty, FrequencyPenalty: r.FrequencyPenalty,
		Stop: r.Stop, Seed: r.Seed,
	}}
	if r.MaxTokens != nil {
		in.Turn.Sampling.MaxTokens = *r.MaxTokens
	}
	if r.MaxCompletionTokens != nil {
		in.Turn.Sampling.MaxTokens = *r.MaxCompletionTokens
	}
	return in, nil
}

// title is text on one line, cut to TitleRunes.
func title(text string) string {
	t := strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(t) <= TitleRunes {
		return t
	}
	return strings.TrimSpace(string([]rune(t)[:TitleRunes-1])) + "…"
}
