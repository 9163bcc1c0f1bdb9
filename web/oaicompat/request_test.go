package oaicompat_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"yakor"
	"yakor/history"
	"yakor/turn"
	"yakor/web/oaicompat"
)

func ptr[T any](v T) *T { return &v }

// TestParseRefuses: every field Yakor would have to ignore is refused,
// naming it, with OpenAI's code; so are values out of range.
func TestParseRefuses(t *testing.T) {
	const msgs = `"messages":[{"role":"user","content":"hi"}]`
	for _, tc := range []struct {
		name, body, param, code string
	}{
		{"Unknown", `{"model":"yakor",` + msgs + `,"frobnicate":1}`, "frobnicate", "unsupported_parameter"},
		{"UnknownCase", `{"Model":"yakor",` + msgs + `}`, "Model", "unsupported_parameter"},
		{"ToolType", `{"model":"yakor",` + msgs + `,"tools":[{"type":"custom","custom":{"name":"f"}}]}`, "tools[0].type", "unsupported_value"},
		{"ToolName", `{"model":"yakor",` + msgs + `,"tools":[{"type":"function","function":{"name":"a b"}}]}`, "tools[0].name", "invalid_value"},
		{"ToolTwice", `{"model":"yakor",` + msgs + `,"tools":[{"type":"function","function":{"name":"f"}},{"type":"function","function":{"name":"f"}}]}`, "tools[1].name", "invalid_value"},
		{"ToolChoiceUnknown", `{"model":"yakor",` + msgs + `,"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":{"type":"function","function":{"name":"g"}}}`, "tool_choice", "invalid_value"},
		{"ToolChoiceWord", `{"model":"yakor",` + msgs + `,"tool_choice":"always"}`, "tool_choice", "invalid_value"},
		{"Functions", `{"model":"yakor",` + msgs + `,"functions":[{"name":"f"}]}`, "functions", "unsupported_parameter"},
		{"FunctionCall", `{"model":"yakor",` + msgs + `,"function_call":"auto"}`, "function_call", "unsupported_parameter"},
		{"FormatType", `{"model":"yakor",` + msgs + `,"response_format":{"type":"xml"}}`, "response_format.type", "invalid_value"},
		{"SchemaNameless", `{"model":"yakor",` + msgs + `,"response_format":{"type":"json_schema","json_schema":{"schema":{}}}}`, "response_format.json_schema", "invalid_value"},
		{"LogprobsStreamed", `{"model":"yakor",` + msgs + `,"stream":true,"logprobs":true}`, "logprobs", "unsupported_value"},
		{"TopLogprobsAlone", `{"model":"yakor",` + msgs + `,"top_logprobs":2}`, "top_logprobs", "invalid_value"},
		{"N2", `{"model":"yakor",` + msgs + `,"n":2}`, "n", "unsupported_parameter"},
		{"Audio", `{"model":"yakor",` + msgs + `,"audio":{"voice":"alloy"}}`, "audio", "unsupported_parameter"},
		{"Modalities", `{"model":"yakor",` + msgs + `,"modalities":["text","audio"]}`, "modalities", "unsupported_parameter"},
		{"StreamOptionUnknown", `{"model":"yakor",` + msgs + `,"stream":true,"stream_options":{"include_obfuscation":false}}`, "stream_options.include_obfuscation", "unsupported_parameter"},
		{"StreamOptionsWithoutStream", `{"model":"yakor",` + msgs + `,"stream_options":{"include_usage":true}}`, "stream_options", "invalid_value"},
		{"AssistantImage", `{"model":"yakor","messages":[{"role":"assistant","content":[{"type":"image_url","image_url":{"url":"data:"}}]},{"role":"user","content":"hi"}]}`, "messages[0].content[0].type", "unsupported_value"},
		{"Audio part", `{"model":"yakor","messages":[{"role":"user","content":[{"type":"input_audio","input_audio":{}}]}]}`, "messages[0].content[0].type", "unsupported_value"},
		{"OrphanTool", `{"model":"yakor","messages":[{"role":"user","content":"hi"},{"role":"tool","content":"42","tool_call_id":"c"}]}`, "messages[1].role", "invalid_value"},
		{"ToolWithoutID", `{"model":"yakor","messages":[{"role":"tool","content":"42"}]}`, "messages[0].tool_call_id", "missing_required_parameter"},
		{"UserToolCalls", `{"model":"yakor","messages":[{"role":"user","content":"hi","tool_calls":[]}]}`, "messages[0].tool_calls", "invalid_value"},
		{"EndsWithCalls", `{"model":"yakor","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}]}`, "messages[1]", "invalid_value"},
		{"NameLong", `{"model":"yakor","messages":[{"role":"user","content":"hi","name":"` + strings.Repeat("a", 201) + `"}]}`, "messages[0].name", "invalid_value"},
		{"Temperature", `{"model":"yakor",` + msgs + `,"temperature":3}`, "temperature", "invalid_value"},
		{"TemperatureType", `{"model":"yakor",` + msgs + `,"temperature":"hot"}`, "temperature", "invalid_value"},
		{"TopP", `{"model":"yakor",` + msgs + `,"top_p":1.5}`, "top_p", "invalid_value"},
		{"MaxTokens", `{"model":"yakor",` + msgs + `,"max_tokens":0}`, "max_tokens", "invalid_value"},
		{"Stop5", `{"model":"yakor",` + msgs + `,"stop":["a","b","c","d","e"]}`, "stop", "invalid_value"},
		{"NoModel", `{` + msgs + `}`, "model", "missing_required_parameter"},
		{"NoMessages", `{"model":"yakor","messages":[]}`, "messages", "missing_required_parameter"},
		{"NoUserMessage", `{"model":"yakor","messages":[{"role":"system","content":"be brief"}]}`, "messages", "missing_required_parameter"},
		{"PrefillAlone", `{"model":"yakor","messages":[{"role":"assistant","content":"Hel"}]}`, "messages[0].role", "unsupported_value"},
		{"EmptyHistory", `{"model":"yakor","messages":[{"role":"assistant","content":" "},{"role":"user","content":"hi"}]}`, "messages[0].content", "invalid_value"},
		{"NotObject", `[1]`, "", "invalid_value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := oaicompat.ParseChatRequest([]byte(tc.body))
			if err == nil {
				_, err = r.Inputs()
			}
			var re *oaicompat.RequestError
			if !errors.As(err, &re) {
				t.Fatalf("err %v, want a *RequestError", err)
			}
			if re.Param != tc.param || re.Code != tc.code || yakor.ErrorCode(err) != yakor.EINVALID {
				t.Fatalf("param %q code %q (%s): %v; want param %q code %q", re.Param, re.Code, yakor.ErrorCode(err), err, tc.param, tc.code)
			}
		})
	}
}

// TestInputs: the newest user message is the turn, earlier user and
// assistant messages its history, system and developer messages the system
// prompt; text parts are joined; the sampling settings are passed on; what
// means the default (n 1, text format, logprobs false, nulls) is taken.
func TestInputs(t *testing.T) {
	body := `{"model":"yakor","user":"ann","stream":true,"stream_options":{"include_usage":true},
	"temperature":0,"top_p":0.9,"max_tokens":50,"max_completion_tokens":60,"stop":"END","seed":7,
	"presence_penalty":0.5,"frequency_penalty":-0.5,"n":1,"response_format":{"type":"text"},"logprobs":false,"tools":null,
	"messages":[
		{"role":"system","content":"Be brief."},
		{"role":"user","content":"The oak table costs 48200 rubles, and the chairs are extra."},
		{"role":"assistant","content":"Noted."},
		{"role":"developer","content":[{"type":"text","text":"Answer in English."}]},
		{"role":"user","content":[{"type":"text","text":"What did"},{"type":"text","text":"the table cost?"}]}
	]}`
	r, err := oaicompat.ParseChatRequest([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	in, err := r.Inputs()
	if err != nil {
		t.Fatal(err)
	}
	want := oaicompat.Inputs{
		Model: "yakor", User: "ann", Stream: true, IncludeUsage: true,
		Turn: turn.Input{Content: "What did\nthe table cost?", Sampling: turn.Sampling{
			MaxTokens: 60, Temperature: ptr[float32](0), TopP: ptr[float32](0.9), PresencePenalty: ptr[float32](0.5),
			FrequencyPenalty: ptr[float32](-0.5), Stop: []string{"END"}, Seed: ptr(7),
		}},
		History: []history.NewMessage{
			{Role: "user", Content: "The oak table costs 48200 rubles, and the chairs are extra."},
			{Role: "assistant", Content: "Noted."},
		},
		SystemPrompt: "Be brief.\n\nAnswer in English.",
		Title:        "The oak table costs 48200 rubles, and the chairs are extra.",
	}
	if diff := cmp.Diff(want, in); diff != "" {
		t.Fatalf("inputs (-want +got):\n%s", diff)
	}
}

// TestInputsTools: the caller's tools and choice go to the turn; trailing
// tool messages are the turn's results, named by the calls they answer;
// the calls and results before them are history with their meta; a user's
// name and images reach the turn (the images named in its text); a
// trailing assistant message is the prefill.
func TestInputsTools(t *testing.T) {
	body := `{"model":"yakor","tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}],
	"tool_choice":"auto","parallel_tool_calls":false,"response_format":{"type":"json_object"},
	"messages":[
		{"role":"user","content":"Weather in Paris?","name":"ann"},
		{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"18 C"}
	]}`
	r, err := oaicompat.ParseChatRequest([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	in, err := r.Inputs()
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Turn.Tools.Tools) != 1 || in.Turn.Tools.Tools[0].Name != "get_weather" || string(in.Turn.Tools.Choice) != `"auto"` ||
		in.Turn.Tools.Parallel == nil || *in.Turn.Tools.Parallel || !in.Turn.Sampling.JSON() {
		t.Fatalf("tools and format: %+v %+v", in.Turn.Tools, in.Turn.Sampling)
	}
	if diff := cmp.Diff([]turn.ToolResult{{CallID: "c1", Name: "get_weather", Content: "18 C"}}, in.Turn.ToolResults); diff != "" || in.Turn.Content != "" {
		t.Fatalf("results (-want +got):\n%s", diff)
	}
	if len(in.History) != 2 || in.History[0].Author != "ann" || in.History[1].Meta == nil || in.History[1].Meta.ToolCalls[0].ID != "c1" ||
		!strings.Contains(in.History[1].Content, "get_weather") {
		t.Fatalf("history %+v", in.History)
	}

	body = `{"model":"yakor","messages":[{"role":"user","name":"ann","content":[{"type":"text","text":"What is it?"},
		{"type":"image_url","image_url":{"url":"https://example.com/cat.png","detail":"low"}}]},{"role":"assistant","content":"It is"}]}`
	if r, err = oaicompat.ParseChatRequest([]byte(body)); err != nil {
		t.Fatal(err)
	}
	if in, err = r.Inputs(); err != nil {
		t.Fatal(err)
	}
	if in.Turn.Content != "What is it?\n[image: https://example.com/cat.png]" || in.Turn.Author != "ann" || in.Turn.Prefill != "It is" ||
		len(in.Turn.Images) != 1 || in.Turn.Images[0].Detail != "low" {
		t.Fatalf("turn %+v", in.Turn)
	}
	again, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(again), `"image_url"`) {
		t.Fatalf("encoded %s", again)
	}
}

func TestErrorShape(t *testing.T) {
	got := oaicompat.NewError(401, "no key", "", "")
	if got.Error.Type != "authentication_error" || *got.Error.Code != "invalid_api_key" || got.Error.Param != nil {
		t.Fatalf("%+v", got)
	}
	got = oaicompat.NewError(400, "bad", "tools", "unsupported_parameter")
	if got.Error.Type != "invalid_request_error" || *got.Error.Param != "tools" || *got.Error.Code != "unsupported_parameter" {
		t.Fatalf("%+v", got)
	}
}
