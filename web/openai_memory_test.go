package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"yakor/account"
	"yakor/search"
	"yakor/turn"
)

// TestChatCompletionsMemory: on a model server, a user's second request,
// which sends only its new question, is answered from the first request's
// turn, which had scrolled out of the window: the model asks to search,
// and the second pass sees the hit. The request's sampling settings reach
// every pass; the server's token counts and finish reason reach the
// client; a model failure after the thread is known is OpenAI-shaped and
// names the thread, in a stream too.
func TestChatCompletionsMemory(t *testing.T) {
	var requests requestLog
	fake := newFakeOpenAI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		req := requests.record(r)
		msgs := req["messages"].([]any)
		last := fmt.Sprint(msgs[len(msgs)-1].(map[string]any)["content"])
		switch {
		case strings.HasPrefix(last, search.FoundOpen) && strings.Contains(last, "48200"):
			streamChunks(w, []string{"The oak table ", "was 48200 rubles."}, false)
		case strings.HasPrefix(last, search.FoundOpen):
			streamChunks(w, []string{"I found nothing."}, false)
		case strings.Contains(last, "oak") && strings.HasSuffix(last, "?"):
			streamChunks(w, []string{"SEARCH_HISTORY: oak table"}, false)
		case last == "Count my tokens.":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, `data: {"id":"c","object":"chat.completion.chunk","model":"fake-1","choices":[{"index":0,"delta":{"content":"Cut short"},"finish_reason":"length"}]}`+"\n\n")
			fmt.Fprint(w, `data: {"id":"c","object":"chat.completion.chunk","model":"fake-1","choices":[],"usage":{"prompt_tokens":321,"completion_tokens":5,"total_tokens":326}}`+"\n\n")
			fmt.Fprint(w, "data: [DONE]\n\n")
		case last == "Break the stream.":
			streamChunks(w, []string{"Half an "}, true)
		case last == "Fail.":
			http.Error(w, `{"error":{"message":"upstream exploded","type":"server_error"}}`, http.StatusInternalServerError)
		default:
			streamChunks(w, []string{"Noted."}, false)
		}
	})
	s := mustStack(t, fake.model(), turn.Config{WindowChars: 300})
	ask := func(content string, extra map[string]any) chatReply {
		req := map[string]any{"user": "erin", "messages": []any{user(content)}}
		for k, v := range extra {
			req[k] = v
		}
		return s.complete(t, req)
	}

	first := ask("The oak table costs 48200 rubles.", nil)
	first.completion(t)
	thread, _ := first.thread()
	for i := range 4 {
		ask(fmt.Sprintf("%d %s", i, strings.Repeat("filler about chairs ", 5)), nil).completion(t)
	}
	requests.take()
	sampling := map[string]any{"temperature": 0.25, "top_p": 0.5, "max_tokens": 77, "stop": []string{"END"}, "seed": 3,
		"presence_penalty": 0.125, "frequency_penalty": -0.5}
	r := ask("What did the oak table cost?", sampling)
	c := r.completion(t)
	if got := c.Choices[0].Message.Text(); got != "The oak table was 48200 rubles." {
		t.Fatalf("reply %q: the second request did not get the first's memory", got)
	}
	if th, isNew := r.thread(); th != thread || isNew {
		t.Fatalf("thread %q new %v, want %q", th, isNew, thread)
	}
	if !c.Usage.Estimated {
		t.Fatalf("usage %+v: the search pass was cut before the server counted tokens", c.Usage)
	}
	passes := requests.take()
	if len(passes) != 2 {
		t.Fatalf("%d model calls, want a search pass and an answer", len(passes))
	}
	for i, p := range passes {
		for k, want := range map[string]any{"temperature": 0.25, "top_p": 0.5, "max_tokens": 77.0, "seed": 3.0,
			"presence_penalty": 0.125, "frequency_penalty": -0.5, "stop": []any{"END"}} {
			if fmt.Sprint(p[k]) != fmt.Sprint(want) {
				t.Errorf("pass %d: %s = %v, want %v", i, k, p[k], want)
			}
		}
	}
	for _, m := range passes[0]["messages"].([]any) {
		if m := m.(map[string]any); m["role"] != "system" && strings.Contains(fmt.Sprint(m["content"]), "48200") {
			t.Fatalf("the first turn was still in the window; the test needs it scrolled out: %v", m)
		}
	}

	t.Run("CountedUsage", func(t *testing.T) {
		c := ask("Count my tokens.", nil).completion(t)
		if u := c.Usage; u.Estimated || u.PromptTokens != 321 || u.CompletionTokens != 5 || u.TotalTokens != 326 {
			t.Fatalf("usage %+v", u)
		}
		if c.Choices[0].FinishReason != "length" {
			t.Fatalf("finish reason %q", c.Choices[0].FinishReason)
		}
	})

	t.Run("ModelFails", func(t *testing.T) {
		r := ask("Fail.", nil)
		e := r.openAIError(t, http.StatusBadGateway)
		if th, _ := r.thread(); th != thread || e.Type != "server_error" || !strings.Contains(e.Message, "upstream exploded") {
			t.Fatalf("thread %q, error %+v", th, e)
		}
	})

	t.Run("StreamBreaks", func(t *testing.T) {
		r := ask("Break the stream.", map[string]any{"stream": true})
		chunks, streamErr, done := r.chunks(t)
		if done || streamErr == nil || !strings.Contains(streamErr.Message, "stream broken") || streamErr.Type != "server_error" {
			t.Fatalf("done %v, error %+v", done, streamErr)
		}
		if len(chunks) != 2 || *chunks[1].Choices[0].Delta.Content != "Half an " {
			t.Fatalf("chunks %+v", chunks)
		}
		if th, _ := r.thread(); th != thread {
			t.Fatalf("thread %q", th)
		}
	})
}

// TestChatCompletionsKeys: with no key made, an OpenAI client's bearer,
// whatever it is, acts as the local user; once a key exists a missing or
// wrong key is 401 and a key over its rate 429 with Retry-After, in
// OpenAI's shape.
func TestChatCompletionsKeys(t *testing.T) {
	s := newStack(t, stackOptions{keys: true})
	if r := s.chat(t, "sk-no-keys-yet", "POST", "/v1/chat/completions", `{"model":"yakor","messages":[{"role":"user","content":"hi"}]}`); r.code != http.StatusOK {
		t.Fatalf("local mode with a bearer: %d %s", r.code, r.body)
	}
	if code, body, _ := s.call(t, "sk-no-keys-yet", "GET", "/api/v1/threads", ""); code != http.StatusOK {
		t.Fatalf("local mode with a bearer, native API: %d %s", code, body)
	}
	_, key := mustKey(t, s, account.NewKey{Tenant: "acme", User: "ann"})
	_, slow := mustKey(t, s, account.NewKey{Tenant: "acme", User: "ann", RatePerMinute: 6})
	time.Sleep(2100 * time.Millisecond) // the server checks for keys every 2 s

	for _, k := range []string{"", "sk-wrong"} {
		r := s.chat(t, k, "POST", "/v1/chat/completions", `{"model":"yakor","messages":[{"role":"user","content":"hi"}]}`)
		if e := r.openAIError(t, http.StatusUnauthorized); e.Type != "authentication_error" || e.Code == nil || *e.Code != "invalid_api_key" {
			t.Fatalf("key %q: %+v", k, e)
		}
	}
	if r := s.chat(t, key, "GET", "/v1/models", ""); r.code != http.StatusOK {
		t.Fatalf("a valid key: %d %s", r.code, r.body)
	}
	if r := s.chat(t, key, "POST", "/v1/chat/completions", `{"model":"yakor","user":"ann","messages":[{"role":"user","content":"hi"}]}`); r.code != http.StatusOK {
		t.Fatalf("a valid key naming its own user: %d %s", r.code, r.body)
	}
	r403 := s.chat(t, key, "POST", "/v1/chat/completions", `{"model":"yakor","user":"u1","messages":[{"role":"user","content":"hi"}]}`)
	if e := r403.openAIError(t, http.StatusForbidden); e.Type != "permission_error" || !strings.Contains(e.Message, "u1") {
		t.Fatalf("a user key naming another user: %+v", e)
	}
	s.chat(t, slow, "GET", "/v1/models", "")
	r := s.chat(t, slow, "GET", "/v1/models", "")
	e := r.openAIError(t, http.StatusTooManyRequests)
	if r.header.Get("Retry-After") == "" || e.Type != "rate_limit_error" || !strings.Contains(e.Message, "6 requests a minute") {
		t.Fatalf("over the rate: %+v, Retry-After %q", e, r.header.Get("Retry-After"))
	}
}
