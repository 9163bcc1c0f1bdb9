package oaicompat_test

import (
	"errors"
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
		{"Tools", `{"model":"yakor",` + msgs + `,"tools":[]}`, "tools", "unsupported_parameter"},
		{"ToolChoice", `{"model":"yakor",` + msgs + `,"tool_choice":"auto"}`, "tool_choice", "unsupported_parameter"},
		{"Functions", `{"model":"yakor",` + msgs + `,"functions":[{"name":"f"}]}`, "functions", "unsupported_parameter"},
		{"FunctionCall", `{"model":"yakor",` + msgs + `,"function_call":"auto"}`, "function_call", "unsupported_parameter"},
		{"JSONFormat", `{"model":"yakor",` + msgs + `,"response_format":{"type":"json_object"}}`, "response_format", "unsupported_parameter"},
		{"Logprobs", `{"model":"yakor",` + msgs + `,"logprobs":true}`, "logprobs", "unsupported_parameter"},
		{"N2", `{"model":"yakor",` + msgs + `,"n":2}`, "n", "unsupported_parameter"},
		{"Audio", `{"model":"yakor",` + msgs + `,"audio":{"voice":"alloy"}}`, "audio", "unsupported_parameter"},
		{"Modalities", `{"model":"yakor",` + msgs + `,"modalities":["text","audio"]}`, "modalities", "unsupported_parameter"},
		{"StreamOptionUnknown", `{"model":"yakor",` + msgs + `,"stream":true,"stream_options":{"include_obfuscation":false}}`, "stream_options.include_obfuscation", "unsupported_parameter"},
		{"StreamOptionsWithoutStream", `{"model":"yakor",` + msgs + `,"stream_options":{"include_usage":true}}`, "stream_options", "invalid_value"},
		{"Image", `{"model":"yakor","messages":[{"role":"user","content":[{"type":"text","text":"what is it?"},{"type":"image_url","image_url":{"url":"data:"}}]}]}`, "messages[0].content[1].type", "unsupported_value"},
		{"ToolRole", `{"model":"yakor","messages":[{"role":"tool","content":"42","tool_call_id":"c"},{"role":"user","content":"hi"}]}`, "messages[0].tool_call_id", "unsupported_parameter"},
		{"ToolCalls", `{"model":"yakor","messages":[{"role":"assistant","content":null,"tool_calls":[]},{"role":"user","content":"hi"}]}`, "messages[0].tool_calls", "unsupported_parameter"},
		{"Name", `{"model":"yakor","messages":[{"role":"user","content":"hi","name":"ann"}]}`, "messages[0].name", "unsupported_parameter"},
		{"Temperature", `{"model":"yakor",` + msgs + `,"temperature":3}`, "temperature", "invalid_value"},
		{"TemperatureType", `{"model":"yakor",` + msgs + `,"temperature":"hot"}`, "temperature", "invalid_value"},
		{"TopP", `{"model":"yakor",` + msgs + `,"top_p":1.5}`, "top_p", "invalid_value"},
		{"MaxTokens", `{"model":"yakor",` + msgs + `,"max_tokens":0}`, "max_tokens", "invalid_value"},
		{"Stop5", `{"model":"yakor",` + msgs + `,"stop":["a","b","c","d","e"]}`, "stop", "invalid_value"},
		{"NoModel", `{` + msgs + `}`, "model", "missing_required_parameter"},
		{"NoMessages", `{"model":"yakor","messages":[]}`, "messages", "missing_required_parameter"},
		{"NoUserMessage", `{"model":"yakor","messages":[{"role":"system","content":"be brief"}]}`, "messages", "missing_required_parameter"},
		{"Prefill", `{"model":"yakor","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"Hel"}]}`, "messages[1].role", "unsupported_value"},
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
