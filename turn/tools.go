package turn

import (
	"encoding/json"
	"fmt"
	"strings"

	"yakor/history"
	"yakor/llm"
)

// Tools are the caller's tools for a turn's model calls, passed to the
// model as OpenAI's tools, tool_choice and parallel_tool_calls. A reply
// that calls them ends the turn with the calls (Outcome.Reply.Meta); the
// caller's results come back as the next turn's Input.ToolResults.
type Tools struct {
	Tools    []llm.Tool
	Choice   json.RawMessage // nil: the server's default
	Parallel *bool
}

// ToolResult is the caller's answer to one call of its tools.
type ToolResult struct {
	CallID  string
	Name    string // the tool's name, when the caller gave it
	Content string
}

// searchToolName is the name Yakor's own search goes by beside the
// caller's tools: one none of them has (search_history when alone).
func searchToolName(tools []llm.Tool) string {
	if len(tools) == 0 {
		return searchTool.Name
	}
	taken := map[string]bool{}
	for _, t := range tools {
		taken[t.Name] = true
	}
	name := "yakor_search_history"
	for i := 2; taken[name]; i++ {
		name = fmt.Sprintf("yakor_search_history_%d", i)
	}
	return name
}

// ToolResultMessage is a tool result as the thread stores it: the text
// names the call for readers (search, anchors, summaries), and meta keeps
// the result as the model gets it.
func ToolResultMessage(r ToolResult, clientID string) history.NewMessage {
	head := "Result of the tool call " + r.CallID
	if r.Name != "" {
		head = "Result of " + r.Name + " (call " + r.CallID + ")"
	}
	return history.NewMessage{Role: history.RoleTool, Kind: history.KindTool, Content: head + ":\n" + r.Content, ClientID: clientID,
		Meta: &history.Meta{ToolCallID: r.CallID, Name: r.Name, Text: r.Content}}
}

// ReplyMessage is the model's reply as the thread stores it: with calls of
// the caller's tools, their names and arguments written out after its text.
func ReplyMessage(text string, calls []llm.ToolCall, turnID string) history.NewMessage {
	m := history.NewMessage{Role: history.RoleAssistant, Content: text, TurnID: turnID}
	if len(calls) == 0 {
		return m
	}
	meta := &history.Meta{Text: text}
	lines := []string{}
	if strings.TrimSpace(text) != "" {
		lines = append(lines, text)
	}
	for _, c := range calls {
		meta.ToolCalls = append(meta.ToolCalls, history.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
		lines = append(lines, "[called "+c.Name+" "+c.Arguments+"]")
	}
	m.Content, m.Meta = strings.Join(lines, "\n"), meta
	return m
}

// llmMessages are stored messages as the model gets them. An assistant
// message's tool calls go as calls, with its results right after it, when
// every call's result follows it; otherwise (a window that starts between
// them, a call never answered) both go as text, which every server takes.
// Summaries and tool outputs sent as text reach the model as system
// context.
func llmMessages(msgs []history.Message) []llm.Message {
	out := make([]llm.Message, 0, len(msgs))
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if n := answeredCalls(msgs[i:]); n > 0 {
			calls := make([]llm.ToolCall, len(m.Meta.ToolCalls))
			for j, c := range m.Meta.ToolCalls {
				calls[j] = llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
			}
			out = append(out, llm.Message{Role: "assistant", Content: m.Meta.Text, ToolCalls: calls})
			for _, r := range msgs[i+1 : i+1+n] {
				out = append(out, llm.Message{Role: "tool", ToolCallID: r.Meta.ToolCallID, Content: r.Meta.Text})
			}
			i += n
			continue
		}
		role := m.Role
		if role != history.RoleAssistant && role != history.RoleUser {
			role = "system"
		}
		out = append(out, llm.Message{Role: role, Content: m.Content, Name: m.Author})
	}
	return out
}

// answeredCalls is how many tool results right after msgs[0] answer its
// tool calls, when they answer every one of them; else 0.
func answeredCalls(msgs []history.Message) int {
	m := msgs[0]
	if m.Role != history.RoleAssistant || m.Meta == nil || len(m.Meta.ToolCalls) == 0 {
		return 0
	}
	want := map[string]bool{}
	for _, c := range m.Meta.ToolCalls {
		want[c.ID] = true
	}
	n := 0
	for _, r := range msgs[1:] {
		if r.Role != history.RoleTool || r.Meta == nil || !want[r.Meta.ToolCallID] {
			break
		}
		delete(want, r.Meta.ToolCallID)
		n++
	}
	if len(want) > 0 {
		return 0
	}
	return n
}

// ReplayOf is the outcome of a turn answered before: its stored reply,
// with its text and tool calls as the model wrote them.
func ReplayOf(userMsg, reply history.Message, turnID string) Outcome {
	o := Outcome{UserMessage: userMsg, Reply: reply, TurnID: turnID, Replayed: true, Text: reply.Content}
	if reply.Meta != nil && len(reply.Meta.ToolCalls) > 0 {
		o.Text = reply.Meta.Text
		for _, c := range reply.Meta.ToolCalls {
			o.ToolCalls = append(o.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
		}
		o.Usage.FinishReason = "tool_calls"
	}
	return o
}

// callName is the name of the tool that m's call id called.
func callName(m history.Message, id string) string {
	if m.Meta == nil {
		return ""
	}
	for _, c := range m.Meta.ToolCalls {
		if c.ID == id {
			return c.Name
		}
	}
	return ""
}
