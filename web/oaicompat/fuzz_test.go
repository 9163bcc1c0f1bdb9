package oaicompat_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"yakor"
	"yakor/web/oaicompat"
)

// codes are the OpenAI error codes a refused request may carry.
var codes = []string{
	oaicompat.CodeUnsupportedParameter, oaicompat.CodeUnsupportedValue,
	oaicompat.CodeInvalidValue, oaicompat.CodeMissingParameter,
}

// FuzzChatRequest parses any body as a chat request and splits it into
// Yakor's inputs. Nothing panics; a refusal is a *RequestError coded
// EINVALID with a message and one of OpenAI's codes; an accepted request
// keeps OpenAI's ranges, encodes to a body that parses to the same request
// (and the same inputs); and its inputs have as the turn the trailing tool
// results, or the newest user message (with a trailing assistant message
// as its prefill), the messages before it as the history, and a one-line
// title.
func FuzzChatRequest(f *testing.F) {
	f.Add([]byte(`{"model":"yakor","messages":[{"role":"user","content":"hi"}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := oaicompat.ParseChatRequest(body)
		if err != nil {
			checkRefusal(t, body, err)
			return
		}
		checkRanges(t, body, r)
		in, inErr := r.Inputs()

		again, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("%q: encode %+v: %v", body, r, err)
		}
		r2, err := oaicompat.ParseChatRequest(again)
		if err != nil {
			t.Fatalf("%q parsed to %s, which is refused: %v", body, again, err)
		}
		if diff := cmp.Diff(r, r2); diff != "" {
			t.Fatalf("%q parsed to %s, which parses differently (-first +again):\n%s", body, again, diff)
		}
		in2, inErr2 := r2.Inputs()
		if diff := cmp.Diff(in, in2); diff != "" || (inErr == nil) != (inErr2 == nil) {
			t.Fatalf("%q: the inputs differ after encoding (%v, %v):\n%s", body, inErr, inErr2, diff)
		}

		if inErr != nil {
			checkRefusal(t, body, inErr)
			return
		}
		checkInputs(t, body, r, in)
	})
}

func checkRefusal(t *testing.T, body []byte, err error) {
	t.Helper()
	var re *oaicompat.RequestError
	if !errors.As(err, &re) || yakor.ErrorCode(err) != yakor.EINVALID {
		t.Fatalf("%q refused with %T %v (%s), want a *RequestError coded %s", body, err, err, yakor.ErrorCode(err), yakor.EINVALID)
	}
	if msg := yakor.ErrorMessage(err); strings.TrimSpace(msg) == "" || !utf8.ValidString(msg) {
		t.Fatalf("%q refused with the message %q", body, msg)
	}
	if !slices.Contains(codes, re.Code) {
		t.Fatalf("%q refused with the code %q", body, re.Code)
	}
}

func checkRanges(t *testing.T, body []byte, r oaicompat.ChatRequest) {
	t.Helper()
	fail := func(what string) { t.Fatalf("%q accepted with %s: %+v", body, what, r) }
	if strings.TrimSpace(r.Model) == "" {
		fail("no model")
	}
	if len(r.Messages) == 0 {
		fail("no messages")
	}
	for _, m := range r.Messages {
		if !slices.Contains([]string{"system", "developer", "user", "assistant", "tool"}, m.Role) {
			fail("role " + m.Role)
		}
	}
	if len(r.Stop) > oaicompat.MaxStop || slices.Contains(r.Stop, "") {
		fail("stop out of range")
	}
	if utf8.RuneCountInString(r.User) > oaicompat.MaxUserLen || strings.ContainsRune(r.User, 0) {
		fail("a bad user")
	}
	if r.N != nil && *r.N != 1 || r.StreamOptions != nil && !r.Stream {
		fail("n or stream_options out of range")
	}
	for _, p := range []struct {
		v        *float32
		min, max float32
	}{{r.Temperature, 0, 2}, {r.TopP, 0, 1}, {r.PresencePenalty, -2, 2}, {r.FrequencyPenalty, -2, 2}} {
		if p.v != nil && !(*p.v >= p.min && *p.v <= p.max) {
			fail("a sampling setting out of range")
		}
	}
	if r.MaxTokens != nil && *r.MaxTokens < 1 || r.MaxCompletionTokens != nil && *r.MaxCompletionTokens < 1 {
		fail("max tokens below 1")
	}
}

func checkInputs(t *testing.T, body []byte, r oaicompat.ChatRequest, in oaicompat.Inputs) {
	t.Helper()
	fail := func(what string) { t.Fatalf("%q: %s: %+v", body, what, in) }
	var convo []oaicompat.Message
	var system []string
	for _, m := range r.Messages {
		switch m.Role {
		case "system", "developer":
			if strings.TrimSpace(m.Content) != "" {
				system = append(system, m.Content)
			}
		default:
			convo = append(convo, m)
		}
	}
	start := len(convo)
	for start > 0 && convo[start-1].Role == "tool" {
		start--
	}
	switch {
	case start < len(convo):
		if len(in.Turn.ToolResults) != len(convo)-start || in.Turn.Content != "" || (start > 0 && len(convo[start-1].ToolCalls) == 0) {
			fail("the turn is not the trailing tool results")
		}
		for i, r := range in.Turn.ToolResults {
			if r.CallID != convo[start+i].ToolCallID || r.Content != convo[start+i].Content {
				fail("a tool result is not its message's")
			}
		}
	default:
		start = len(convo) - 1
		if convo[start].Role == "assistant" {
			if in.Turn.Prefill != convo[start].Content {
				fail("the prefill is not the trailing assistant message")
			}
			start--
		}
		if convo[start].Role != "user" || in.Turn.Content != convo[start].StoredText() || strings.TrimSpace(in.Turn.Content) == "" {
			fail("the turn is not the newest user message")
		}
	}
	if len(in.History) != start {
		fail("the history is not the messages before the turn")
	}
	for i, m := range in.History {
		want := convo[i]
		if m.Role != want.Role || strings.TrimSpace(m.Content) == "" {
			fail("a history message is not the request's")
		}
		if want.Role != "tool" && len(want.ToolCalls) == 0 && m.Content != want.StoredText() {
			fail("a history message's text is not the request's")
		}
	}
	if in.SystemPrompt != strings.Join(system, "\n\n") {
		fail("the system prompt is not the system and developer messages")
	}
	if utf8.RuneCountInString(in.Title) > oaicompat.TitleRunes || strings.ContainsAny(in.Title, "\r\n") {
		fail("a bad title")
	}
	want := 0
	if r.MaxCompletionTokens != nil {
		want = *r.MaxCompletionTokens
	} else if r.MaxTokens != nil {
		want = *r.MaxTokens
	}
	if in.Turn.Sampling.MaxTokens != want || in.Model != r.Model || in.User != r.User || in.Stream != r.Stream {
		fail("the settings are not the request's")
	}
}
