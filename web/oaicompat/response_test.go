package oaicompat_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"yakor/history"
	"yakor/turn"
	"yakor/web/oaicompat"
)

// TestUsageOf: the server's counts when every pass had them, else an
// estimate at 4 characters a token that says it is one.
func TestUsageOf(t *testing.T) {
	out := turn.Outcome{
		UserMessage: history.Message{Content: strings.Repeat("q", 40)},
		Reply:       history.Message{Content: strings.Repeat("a", 10)},
	}
	for _, tc := range []struct {
		name     string
		usage    turn.Usage
		replayed bool
		want     oaicompat.Usage
	}{
		{"Counted", turn.Usage{PromptTokens: 300, CompletionTokens: 7, Counted: true, PromptChars: 1200, Passes: 1}, false,
			oaicompat.Usage{PromptTokens: 300, CompletionTokens: 7, TotalTokens: 307}},
		{"NotCounted", turn.Usage{PromptTokens: 300, PromptChars: 1201, Passes: 2}, false,
			oaicompat.Usage{PromptTokens: 301, CompletionTokens: 3, TotalTokens: 304, Estimated: true}},
		{"Replayed", turn.Usage{}, true,
			oaicompat.Usage{PromptTokens: 10, CompletionTokens: 3, TotalTokens: 13, Estimated: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := out
			o.Usage, o.Replayed = tc.usage, tc.replayed
			if diff := cmp.Diff(tc.want, oaicompat.UsageOf(o)); diff != "" {
				t.Fatalf("usage (-want +got):\n%s", diff)
			}
		})
	}
	if got := oaicompat.FinishReason(turn.Usage{FinishReason: "length"}); got != "length" {
		t.Fatalf("finish reason %q", got)
	}
	if got := oaicompat.FinishReason(turn.Usage{FinishReason: "tool_calls"}); got != "tool_calls" {
		t.Fatalf("finish reason %q", got)
	}
	if got := oaicompat.FinishReason(turn.Usage{FinishReason: "function_call"}); got != "stop" {
		t.Fatalf("finish reason %q", got)
	}
}
