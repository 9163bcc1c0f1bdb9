package oaicompat

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"yakor/llm"
)

// MaxTools bounds the tools of a request (OpenAI's own limit).
const MaxTools = 128

// toolName is what OpenAI takes as a function's name.
var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// checkTools reads tools, tool_choice and parallel_tool_calls: function
// tools only, each with a name and, when given, an object schema.
func checkTools(r *ChatRequest, fields map[string]json.RawMessage) error {
	if raw, ok := fields["tools"]; ok {
		tools, err := parseTools("tools", raw, chatTool)
		if err != nil {
			return err
		}
		r.Tools = tools
	}
	if raw, ok := fields["tool_choice"]; ok {
		if err := checkToolChoice("tool_choice", raw, r.Tools); err != nil {
			return err
		}
		r.ToolChoice = raw
	}
	if raw, ok := fields["parallel_tool_calls"]; ok {
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return invalid("parallel_tool_calls", "parallel_tool_calls must be true or false")
		}
		r.ParallelToolCalls = &b
	}
	return nil
}

// toolDef is one function tool as a request describes it.
type toolDef struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      *bool           `json:"strict"`
	Function    *toolDef        `json:"function"`
}

// chatTool is a Chat Completions tool: {"type": "function", "function":
// {name, description, parameters, strict}}.
func chatTool(d toolDef) (toolDef, bool) {
	if d.Function == nil {
		return toolDef{}, false
	}
	f := *d.Function
	f.Type = d.Type
	return f, true
}

// parseTools reads a list of function tools; flat says where a tool's
// fields are (Chat Completions nests them under "function", the
// Responses API does not).
func parseTools(param string, raw json.RawMessage, flat func(toolDef) (toolDef, bool)) ([]llm.Tool, error) {
	var defs []toolDef
	if err := json.Unmarshal(raw, &defs); err != nil {
		return nil, invalid(param, "%s must be a list of tools", param)
	}
	if len(defs) > MaxTools {
		return nil, invalid(param, "%s holds %d tools; the limit is %d", param, len(defs), MaxTools)
	}
	tools := make([]llm.Tool, 0, len(defs))
	seen := map[string]bool{}
	for i, d := range defs {
		at := fmt.Sprintf("%s[%d]", param, i)
		if d.Type != "function" {
			return nil, unsupportedValue(at+".type", "tools of type %q are not supported: Yakor passes function tools", d.Type)
		}
		f, ok := flat(d)
		if !ok {
			return nil, missing(at+".function", "%s.function is required", at)
		}
		if !toolName.MatchString(f.Name) {
			return nil, invalid(at+".name", "a tool's name must be 1 to 64 letters, digits, _ or -; got %q", f.Name)
		}
		if seen[f.Name] {
			return nil, invalid(at+".name", "two tools are named %q", f.Name)
		}
		seen[f.Name] = true
		if len(f.Parameters) > 0 && !strings.HasPrefix(strings.TrimSpace(string(f.Parameters)), "{") {
			return nil, invalid(at+".parameters", "a tool's parameters must be a JSON Schema object")
		}
		tools = append(tools, llm.Tool{Name: f.Name, Description: f.Description, Parameters: f.Parameters, Strict: f.Strict != nil && *f.Strict})
	}
	return tools, nil
}

// checkToolChoice checks a tool_choice: "none", "auto", "required", or a
// function of tools by name ({"type": "function", "function": {"name"}} or,
// in the Responses API, {"type": "function", "name"}).
func checkToolChoice(param string, raw json.RawMessage, tools []llm.Tool) error {
	var mode string
	if json.Unmarshal(raw, &mode) == nil {
		switch mode {
		case "none", "auto", "required":
			return nil
		}
		return invalid(param, "%s must be \"none\", \"auto\", \"required\" or a function", param)
	}
	var c toolDef
	if err := json.Unmarshal(raw, &c); err != nil || c.Type != "function" {
		return invalid(param, "%s must be \"none\", \"auto\", \"required\" or {\"type\": \"function\", …}", param)
	}
	name := c.Name
	if c.Function != nil {
		name = c.Function.Name
	}
	for _, t := range tools {
		if t.Name == name {
			return nil
		}
	}
	return invalid(param, "%s names the function %q, which tools does not hold", param, name)
}

// parseToolCalls reads an assistant message's tool calls.
func parseToolCalls(at string, raw json.RawMessage) ([]llm.ToolCall, error) {
	var calls []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &calls); err != nil {
		return nil, invalid(at, "%s must be a list of tool calls", at)
	}
	out := make([]llm.ToolCall, 0, len(calls))
	for i, c := range calls {
		if c.ID == "" || c.Function.Name == "" {
			return nil, invalid(fmt.Sprintf("%s[%d]", at, i), "a tool call needs an id and a function name")
		}
		out = append(out, llm.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
	}
	return out, nil
}

// ResponseFormat checks a response format (Chat Completions'
// response_format, or the Responses API's text.format turned into it):
// text, json_object, or json_schema with a name and a schema object. Text
// is nil: the model's default.
func ResponseFormat(param string, raw json.RawMessage) (json.RawMessage, error) {
	var rf struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	}
	if err := json.Unmarshal(raw, &rf); err != nil {
		return nil, invalid(param, "%s must be an object with a type", param)
	}
	switch rf.Type {
	case "text":
		return nil, nil
	case "json_object":
		return raw, nil
	case "json_schema":
		if rf.JSONSchema == nil || !toolName.MatchString(rf.JSONSchema.Name) {
			return nil, invalid(param+".json_schema", "json_schema needs a name of 1 to 64 letters, digits, _ or -")
		}
		if s := strings.TrimSpace(string(rf.JSONSchema.Schema)); s != "" && !strings.HasPrefix(s, "{") {
			return nil, invalid(param+".json_schema.schema", "the schema must be a JSON Schema object")
		}
		return raw, nil
	}
	return nil, invalid(param+".type", "%s.type must be \"text\", \"json_object\" or \"json_schema\"", param)
}
