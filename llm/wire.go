package llm

import (
	"encoding/json"

	openai "github.com/sashabaranov/go-openai"
)

// emptyParameters is the schema of a tool that takes no arguments.
var emptyParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// chatMessages converts messages to go-openai's form: a message with
// images is sent as content parts, its text first.
func chatMessages(in []Message) []openai.ChatCompletionMessage {
	msgs := make([]openai.ChatCompletionMessage, len(in))
	for i, m := range in {
		msgs[i] = openai.ChatCompletionMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, Name: m.Name}
		for _, tc := range m.ToolCalls {
			msgs[i].ToolCalls = append(msgs[i].ToolCalls, openai.ToolCall{
				ID: tc.ID, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: tc.Name, Arguments: tc.Arguments},
			})
		}
		if len(m.Images) == 0 {
			continue
		}
		msgs[i].Content = ""
		if m.Content != "" {
			msgs[i].MultiContent = append(msgs[i].MultiContent, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: m.Content})
		}
		for _, img := range m.Images {
			msgs[i].MultiContent = append(msgs[i].MultiContent, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL,
				ImageURL: &openai.ChatMessageImageURL{URL: img.URL, Detail: openai.ImageURLDetail(img.Detail)}})
		}
	}
	return msgs
}

// chatTools converts tools to go-openai's form.
func chatTools(in []Tool) []openai.Tool {
	var out []openai.Tool
	for _, t := range in {
		params := t.Parameters
		if len(params) == 0 {
			params = emptyParameters
		}
		out = append(out, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: params, Strict: t.Strict,
		}})
	}
	return out
}

// boolOrNil is b for go-openai's optional booleans: nil when unset.
func boolOrNil(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}

// responseFormat converts OpenAI's response_format to go-openai's form;
// nil or a form it cannot read is no format (text).
func responseFormat(raw json.RawMessage) *openai.ChatCompletionResponseFormat {
	if len(raw) == 0 {
		return nil
	}
	var rf struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Schema      json.RawMessage `json:"schema"`
			Strict      bool            `json:"strict"`
		} `json:"json_schema"`
	}
	if json.Unmarshal(raw, &rf) != nil || rf.Type == "" {
		return nil
	}
	out := &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatType(rf.Type)}
	if s := rf.JSONSchema; s != nil {
		schema := s.Schema
		if len(schema) == 0 {
			schema = emptyParameters
		}
		out.JSONSchema = &openai.ChatCompletionResponseFormatJSONSchema{Name: s.Name, Description: s.Description, Schema: schema, Strict: s.Strict}
	}
	return out
}

// logProbs is a choice's log probabilities as JSON, nil when none.
func logProbs(lp *openai.LogProbs) json.RawMessage {
	if lp == nil {
		return nil
	}
	b, err := json.Marshal(lp)
	if err != nil {
		return nil
	}
	return b
}
