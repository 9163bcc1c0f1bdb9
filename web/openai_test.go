package web_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"yakor/turn"
)

// TestChatCompletions runs the OpenAI-compatible endpoint on the offline
// model: the reply's shape, the end user's default conversation (its
// history stored once, when it is made; a changed system prompt taken),
// conversation keys, streaming, X-Yakor-Thread, and the refusals in
// OpenAI's error shape.
func TestChatCompletions(t *testing.T) {
	s := mustStack(t, nil, turn.Config{})

	// Each subtest names its own end user, so that none depends on
	// another's thread: shop opens that user's default conversation as a
	// client's first request.
	shop := func(t *testing.T, name string) chatReply {
		t.Helper()
		return s.complete(t, map[string]any{"user": name, "messages": []any{
			system("You are a furniture shop's assistant."),
			user("The oak table costs 48200 rubles."), assistant("Noted: the oak table is 48200."),
			user("How much is the oak table?"),
		}})
	}
	t.Run("NewThreadFromUser", func(t *testing.T) {
		r := shop(t, "ann")
		c := r.completion(t)
		thread, isNew := r.thread()
		if !isNew || thread == "" {
			t.Fatalf("thread %q new %v", thread, isNew)
		}
		ch := c.Choices[0]
		if !strings.HasPrefix(c.ID, "chatcmpl-") || c.Object != "chat.completion" || c.Model != "yakor" || c.Created == 0 ||
			ch.Message.Role != "assistant" || ch.FinishReason != "stop" || !strings.Contains(ch.Message.Text(), "48200") {
			t.Fatalf("completion %+v", c)
		}
		if u := c.Usage; !u.Estimated || u.PromptTokens == 0 || u.CompletionTokens == 0 || u.TotalTokens != u.PromptTokens+u.CompletionTokens {
			t.Fatalf("usage %+v: the offline model counts no tokens, so they are estimated", u)
		}
		msgs := s.storedMessages(t, thread)
		want := []string{"The oak table costs 48200 rubles.", "Noted: the oak table is 48200.", "How much is the oak table?", ch.Message.Text()}
		if len(msgs) != len(want) {
			t.Fatalf("stored %d messages, want %d: %+v", len(msgs), len(want), msgs)
		}
		for i, m := range msgs {
			if m.Content != want[i] || m.Role != []string{"user", "assistant", "user", "assistant"}[i] {
				t.Fatalf("message %d: %+v, want %q", i, m, want[i])
			}
		}
		var th struct {
			SystemPrompt string `json:"system_prompt"`
			ExternalKey  string `json:"external_key"`
			Title        string
		}
		if code := s.do(t, "GET", "/api/v1/threads/"+thread, "", nil); code != http.StatusNotFound {
			t.Fatalf("the local user reads end user ann's thread: %d", code)
		}
		s.doAs(t, "ann", "GET", "/api/v1/threads/"+thread, "", &th)
		if th.SystemPrompt != "You are a furniture shop's assistant." || th.ExternalKey != "yakor:default" || th.Title != "The oak table costs 48200 rubles." {
			t.Fatalf("thread %+v", th)
		}
		var turnID string
		if err := s.pool.QueryRow(context.Background(), `SELECT id::text FROM turns WHERE thread_id = $1`, thread).Scan(&turnID); err != nil || "chatcmpl-"+turnID != c.ID {
			t.Fatalf("the completion id %s is not the turn's %s (%v)", c.ID, turnID, err)
		}
	})

	t.Run("SameUserSameThreadNoImportNewSystemPrompt", func(t *testing.T) {
		annThread, _ := shop(t, "bea").thread()
		r := s.complete(t, map[string]any{"user": "bea", "messages": []any{
			system("A different system prompt."), user("A history the thread does not need."), assistant("Indeed."),
			user("And the chairs?"),
		}})
		r.completion(t)
		if thread, isNew := r.thread(); thread != annThread || isNew {
			t.Fatalf("thread %q new %v, want %q and not new", thread, isNew, annThread)
		}
		msgs := s.storedMessages(t, annThread)
		if len(msgs) != 6 || msgs[4].Content != "And the chairs?" {
			t.Fatalf("the thread that exists must get the turn only: %+v", msgs)
		}
		var th struct {
			SystemPrompt string     `json:"system_prompt"`
			ChangedAt    *time.Time `json:"system_prompt_changed_at"`
		}
		s.doAs(t, "bea", "GET", "/api/v1/threads/"+annThread, "", &th)
		if th.SystemPrompt != "A different system prompt." || th.ChangedAt == nil {
			t.Fatalf("the changed system prompt was not taken: %+v", th)
		}
	})

	t.Run("Stream", func(t *testing.T) {
		annThread, _ := shop(t, "cleo").thread()
		r := s.complete(t, map[string]any{"user": "cleo", "stream": true, "stream_options": map[string]any{"include_usage": true},
			"messages": []any{user("What does the oak table cost?")}})
		chunks, streamErr, done := r.chunks(t)
		if streamErr != nil || !done || len(chunks) < 4 {
			t.Fatalf("%d chunks, error %v, done %v", len(chunks), streamErr, done)
		}
		if thread, isNew := r.thread(); thread != annThread || isNew {
			t.Fatalf("thread %q new %v", thread, isNew)
		}
		first, usage := chunks[0], chunks[len(chunks)-1]
		finish := chunks[len(chunks)-2]
		if first.Choices[0].Delta.Role != "assistant" || first.Object != "chat.completion.chunk" || !strings.HasPrefix(first.ID, "chatcmpl-") {
			t.Fatalf("first chunk %+v", first)
		}
		var text strings.Builder
		for _, c := range chunks[1 : len(chunks)-2] {
			if c.ID != first.ID || len(c.Choices) != 1 || c.Choices[0].FinishReason != nil || c.Choices[0].Delta.Content == nil {
				t.Fatalf("delta chunk %+v", c)
			}
			text.WriteString(*c.Choices[0].Delta.Content)
		}
		if fr := finish.Choices[0].FinishReason; fr == nil || *fr != "stop" {
			t.Fatalf("finish chunk %+v", finish)
		}
		if len(usage.Choices) != 0 || usage.Usage == nil || usage.Usage.TotalTokens == 0 {
			t.Fatalf("usage chunk %+v", usage)
		}
		msgs := s.storedMessages(t, annThread)
		if last := msgs[len(msgs)-1]; last.Content != text.String() || !strings.Contains(last.Content, "48200") {
			t.Fatalf("streamed %q, stored %q", text.String(), last.Content)
		}
	})

	t.Run("ThreadHeader", func(t *testing.T) {
		native := s.mustThread(t)
		r := s.complete(t, map[string]any{"messages": []any{user("Hello there")}}, "X-Yakor-Thread", native)
		r.completion(t)
		if thread, isNew := r.thread(); thread != native || isNew {
			t.Fatalf("thread %q new %v, want %q", thread, isNew, native)
		}
		if msgs := s.storedMessages(t, native); len(msgs) != 2 {
			t.Fatalf("%d messages in the named thread", len(msgs))
		}
		for _, id := range []string{uuid.NewString(), "not-a-thread"} {
			r := s.complete(t, map[string]any{"messages": []any{user("Hello")}}, "X-Yakor-Thread", id)
			if e := r.openAIError(t, http.StatusNotFound); !strings.Contains(e.Message, id) || e.Type != "invalid_request_error" {
				t.Fatalf("unknown thread %q: %+v", id, e)
			}
		}
	})

	t.Run("Conversations", func(t *testing.T) {
		// Without a conversation, the user's default one.
		a, _ := s.complete(t, map[string]any{"user": "erin", "messages": []any{user("Hi")}}).thread()
		b, isNew := s.complete(t, map[string]any{"user": "erin", "messages": []any{user("Hi")}}).thread()
		if a == "" || a != b || isNew {
			t.Fatalf("default conversation: threads %q and %q (new %v)", a, b, isNew)
		}
		// A conversation key, by header or in the body, names one thread.
		c1, isNew := s.complete(t, map[string]any{"user": "erin", "messages": []any{user("Hi")}}, "X-Yakor-Conversation", "trip").thread()
		if c1 == a || !isNew {
			t.Fatalf("X-Yakor-Conversation: thread %q (new %v), default %q", c1, isNew, a)
		}
		for _, body := range []map[string]any{
			{"user": "erin", "metadata": map[string]string{"conversation": "trip"}, "messages": []any{user("Hi")}},
			{"safety_identifier": "erin", "prompt_cache_key": "trip", "messages": []any{user("Hi")}},
		} {
			if th, isNew := s.complete(t, body).thread(); th != c1 || isNew {
				t.Fatalf("%v: thread %q (new %v), want %q", body, th, isNew, c1)
			}
		}
		// Another user's conversation of the same key is another thread.
		if th, _ := s.complete(t, map[string]any{"user": "finn", "prompt_cache_key": "trip", "messages": []any{user("Hi")}}).thread(); th == c1 || th == "" {
			t.Fatalf("finn's trip is erin's: %q", th)
		}
		r := s.complete(t, map[string]any{"user": "erin", "prompt_cache_key": "a", "messages": []any{user("Hi")}}, "X-Yakor-Conversation", "b")
		if e := r.openAIError(t, http.StatusBadRequest); !strings.Contains(e.Message, "differ") || e.Param == nil || *e.Param != "metadata.conversation" {
			t.Fatalf("two conversation keys: %+v", e)
		}
	})

	t.Run("ConcurrentFirstRequests", func(t *testing.T) {
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			threads = map[string]int{}
			news    int
		)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := s.complete(t, map[string]any{"user": "carol", "messages": []any{user("old"), assistant("older"), user("Hi, I am Carol")}})
				thread, isNew := r.thread()
				mu.Lock()
				defer mu.Unlock()
				threads[thread]++
				if isNew {
					news++
				}
			}()
		}
		wg.Wait()
		if len(threads) != 1 || news != 1 {
			t.Fatalf("threads %v, %d new; want one thread, made once", threads, news)
		}
		for th := range threads {
			// The four requests are one conversation sent four times: its
			// message is stored once; one that came after the answer is a
			// regenerate (the answer before it superseded).
			live, hi := 0, 0
			for _, m := range s.storedMessages(t, th) {
				if m.SupersededAt == nil {
					live++
				}
				if m.Content == "Hi, I am Carol" {
					hi++
				}
			}
			if live != 2+2 || hi != 1 {
				t.Fatalf("%d messages on the branch, the question %d times: the history is stored once, then one turn", live, hi)
			}
		}
	})

	t.Run("IdempotencyKey", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			req  map[string]any
		}{
			{"Conversation", map[string]any{"metadata": map[string]string{"conversation": uuid.NewString()}, "messages": []any{user("Remember 7741")}}},
			{"User", map[string]any{"user": "dave", "messages": []any{user("Remember 7741")}}},
			{"ConversationStream", map[string]any{"stream": true, "prompt_cache_key": uuid.NewString(), "messages": []any{user("Remember 7742")}}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				key := "retry-" + uuid.NewString()
				first := s.complete(t, tc.req, "Idempotency-Key", key)
				before := s.counts(t)
				second := s.complete(t, tc.req, "Idempotency-Key", key)
				if after := s.counts(t); after["messages"] != before["messages"] || after["threads"] != before["threads"] || after["turns"] != before["turns"] {
					t.Fatalf("the retry wrote: %v -> %v", before, after)
				}
				ta, newA := first.thread()
				tb, newB := second.thread()
				if ta != tb || !newA || newB {
					t.Fatalf("threads %q (new %v), %q (new %v)", ta, newA, tb, newB)
				}
				if tc.req["stream"] == true {
					a, _, _ := first.chunks(t)
					b, _, doneB := second.chunks(t)
					if a[0].ID != b[0].ID || !doneB || *b[1].Choices[0].Delta.Content != s.storedMessages(t, ta)[1].Content {
						t.Fatalf("the replayed stream differs: %+v / %+v", a, b)
					}
					return
				}
				ca, cb := first.completion(t), second.completion(t)
				if ca.ID != cb.ID || ca.Choices[0].Message.Text() != cb.Choices[0].Message.Text() {
					t.Fatalf("the retry answered anew: %+v / %+v", ca, cb)
				}
				if n := len(s.storedMessages(t, ta)); n != 2 {
					t.Fatalf("%d messages", n)
				}
			})
		}
	})

	t.Run("Refusals", func(t *testing.T) {
		before := s.counts(t)
		for _, tc := range []struct {
			name, body    string
			status        int
			param, code   string
			messageSaysIt string
		}{
			{"UnknownField", `{"model":"yakor","messages":[{"role":"user","content":"hi"}],"frobnicate":true}`, 400, "frobnicate", "unsupported_parameter", "frobnicate"},
			{"ToolType", `{"model":"yakor","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"custom","custom":{"name":"f"}}]}`, 400, "tools[0].type", "unsupported_value", "custom"},
			{"FormatType", `{"model":"yakor","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"xml"}}`, 400, "response_format.type", "invalid_value", "json_schema"},
			{"OrphanToolResult", `{"model":"yakor","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"c9","content":"42"}]}`, 400, "messages[1].role", "invalid_value", "tool_calls"},
			{"N", `{"model":"yakor","messages":[{"role":"user","content":"hi"}],"n":3}`, 400, "n", "unsupported_parameter", "n must be 1"},
			{"Audio", `{"model":"yakor","messages":[{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"","format":"wav"}}]}]}`, 400, "messages[0].content[0].type", "unsupported_value", "input_audio"},
			{"UnknownModel", `{"model":"gpt-17","messages":[{"role":"user","content":"hi"}]}`, 404, "model", "model_not_found", "gpt-17"},
			{"Malformed", `{"model":`, 400, "", "", "JSON object"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := s.chat(t, "sk-x", "POST", "/v1/chat/completions", tc.body)
				e := r.openAIError(t, tc.status)
				if (tc.param == "") != (e.Param == nil) || (e.Param != nil && *e.Param != tc.param) ||
					(tc.code != "" && (e.Code == nil || *e.Code != tc.code)) || !strings.Contains(e.Message, tc.messageSaysIt) {
					t.Fatalf("error %+v (param %v, code %v)", e, deref(e.Param), deref(e.Code))
				}
				if tc.status == 400 && e.Type != "invalid_request_error" {
					t.Fatalf("type %q", e.Type)
				}
				if r.header.Get("X-Yakor-Thread") != "" {
					t.Fatalf("a request refused before its thread is known names one")
				}
			})
		}
		if after := s.counts(t); after["messages"] != before["messages"] || after["threads"] != before["threads"] {
			t.Fatalf("refused requests wrote: %v -> %v", before, after)
		}
		r := s.chat(t, "", "GET", "/v1/no/such/route", "")
		if e := r.openAIError(t, http.StatusNotFound); !strings.Contains(e.Message, "/v1/no/such/route") {
			t.Fatalf("unknown route: %+v", e)
		}
		r = s.chat(t, "", "DELETE", "/v1/chat/completions", "")
		r.openAIError(t, http.StatusMethodNotAllowed)
	})

	t.Run("Models", func(t *testing.T) {
		r := s.chat(t, "sk-x", "GET", "/v1/models", "")
		if r.code != http.StatusOK || !strings.Contains(r.body, `"object":"list"`) || !strings.Contains(r.body, `{"id":"yakor","object":"model"`) {
			t.Fatalf("models: %d %s", r.code, r.body)
		}
		if r := s.chat(t, "sk-x", "GET", "/v1/models/yakor", ""); r.code != http.StatusOK || !strings.Contains(r.body, `"owned_by":"yakor"`) {
			t.Fatalf("model: %d %s", r.code, r.body)
		}
		if e := s.chat(t, "sk-x", "GET", "/v1/models/gpt-17", "").openAIError(t, http.StatusNotFound); e.Code == nil || *e.Code != "model_not_found" {
			t.Fatalf("unknown model: %+v", e)
		}
	})
}

func deref(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}
