package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"yakor/app/apptest"
	"yakor/web/oaicompat"

	"github.com/jackc/pgx/v5"
)

// chatReply is a /v1 response: status, headers and body.
type chatReply struct {
	code   int
	header http.Header
	body   string
}

// thread is the X-Yakor-Thread the response names and whether it is new.
func (r chatReply) thread() (string, bool) {
	return r.header.Get("X-Yakor-Thread"), r.header.Get("X-Yakor-Thread-New") == "true"
}

// completion decodes a chat.completion.
func (r chatReply) completion(tb testing.TB) oaicompat.ChatCompletion {
	tb.Helper()
	if r.code != http.StatusOK {
		tb.Fatalf("status %d: %s", r.code, r.body)
	}
	var c oaicompat.ChatCompletion
	if err := json.Unmarshal([]byte(r.body), &c); err != nil || len(c.Choices) != 1 {
		tb.Fatalf("completion %q: %v", r.body, err)
	}
	return c
}

// openAIError decodes OpenAI's error shape, failing unless the status is
// code and every field of the shape is there.
func (r chatReply) openAIError(tb testing.TB, code int) oaicompat.ErrorBody {
	tb.Helper()
	var raw map[string]map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.body), &raw); err != nil || r.code != code {
		tb.Fatalf("status %d (want %d), body %q: %v", r.code, code, r.body, err)
	}
	for _, f := range []string{"message", "type", "param", "code"} {
		if _, ok := raw["error"][f]; !ok {
			tb.Fatalf("error without %q: %s", f, r.body)
		}
	}
	var e oaicompat.ErrorResponse
	_ = json.Unmarshal([]byte(r.body), &e)
	return e.Error
}

// chunks decodes a stream's data lines: the chunks, a trailing error line
// (nil if none) and whether it ended with [DONE].
func (r chatReply) chunks(tb testing.TB) (chunks []oaicompat.Chunk, streamErr *oaicompat.ErrorBody, done bool) {
	tb.Helper()
	if r.code != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream") {
		tb.Fatalf("status %d, content type %q: %s", r.code, r.header.Get("Content-Type"), r.body)
	}
	for _, block := range strings.Split(strings.TrimSpace(r.body), "\n\n") {
		data, ok := strings.CutPrefix(block, "data: ")
		if !ok {
			tb.Fatalf("not a data line: %q", block)
		}
		if done {
			tb.Fatalf("data after [DONE]: %q", data)
		}
		if data == "[DONE]" {
			done = true
			continue
		}
		if strings.HasPrefix(data, `{"error"`) {
			var e oaicompat.ErrorResponse
			if err := json.Unmarshal([]byte(data), &e); err != nil {
				tb.Fatal(err)
			}
			streamErr = &e.Error
			continue
		}
		var c oaicompat.Chunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			tb.Fatalf("chunk %q: %v", data, err)
		}
		chunks = append(chunks, c)
	}
	return chunks, streamErr, done
}

// chat sends a request to a /v1 path with a bearer (when key is not "")
// and the headers (name, value, name, value…).
func (s *stack) chat(tb testing.TB, key, method, path, body string, headers ...string) chatReply {
	tb.Helper()
	a := apptest.Call(tb, s.URL, key, method, path, body, nil, headers...)
	return chatReply{code: a.Status, header: a.Header, body: string(a.Body)}
}

// complete posts a chat request as an OpenAI client would (any bearer).
func (s *stack) complete(tb testing.TB, req map[string]any, headers ...string) chatReply {
	tb.Helper()
	if _, ok := req["model"]; !ok {
		req["model"] = "yakor"
	}
	return s.chat(tb, "sk-anything", "POST", "/v1/chat/completions", jsonBody(req), headers...)
}

// user, assistant and system build request messages.
func user(content string) map[string]any { return requestMessage("user", content) }

func assistant(content string) map[string]any { return requestMessage("assistant", content) }

func system(content string) map[string]any { return requestMessage("system", content) }

func requestMessage(role, content string) map[string]any {
	return map[string]any{"role": role, "content": content}
}

// storedMessages lists a thread's messages through the native API.
func (s *stack) storedMessages(tb testing.TB, thread string) []message {
	tb.Helper()
	// The owner's view: the thread may be any end user's.
	rows, err := s.pool.Query(context.Background(), `SELECT id, role, kind, content, superseded_at::text FROM messages WHERE thread_id = $1 ORDER BY id`, thread)
	if err != nil {
		tb.Fatalf("list messages of %s: %v", thread, err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[message])
	if err != nil {
		tb.Fatalf("list messages of %s: %d, %v", thread, len(out), err)
	}
	return out
}

// doAs is do for the end user the app calls user (X-Yakor-User).
func (s *stack) doAs(tb testing.TB, user, method, path, body string, out any) int {
	tb.Helper()
	return apptest.Call(tb, s.URL, "", method, path, body, out, "X-Yakor-User", user).Status
}
