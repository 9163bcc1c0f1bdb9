package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"yakor/turn"
)

// TestBadInput: every bad request gets a 4xx with a message and leaves the
// database as it was.
func TestBadInput(t *testing.T) {
	s := mustStack(t, nil, turn.Config{MaxMessageChars: 50})
	thread := s.mustThread(t)
	msgs := "/api/v1/threads/" + thread + "/messages"
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		says                     string
	}{
		{"EmptyContent", "POST", msgs, `{"content":""}`, 400, "empty"},
		{"BlankContent", "POST", msgs, `{"content":"  \n "}`, 400, "empty"},
		{"MissingContent", "POST", msgs, `{"client_id":"x"}`, 400, "required"},
		{"ContentNotString", "POST", msgs, `{"content":12}`, 400, "content"},
		{"TooLong", "POST", msgs, `{"content":"` + strings.Repeat("щ", 51) + `"}`, 413, "limit is 50"},
		{"NUL", "POST", msgs, `{"content":"a\u0000b"}`, 400, "NUL"},
		{"InvalidUTF8", "POST", msgs, "{\"content\":\"a\xff\xfeb\"}", 400, "UTF-8"},
		{"MalformedJSON", "POST", msgs, `{"content":`, 400, "malformed JSON"},
		{"NotAnObject", "POST", msgs, `["content"]`, 400, "must be a JSON object"},
		{"NullBody", "POST", msgs, `null`, 400, "must be a JSON object"},
		{"LevelNotWhole", "POST", "/api/v1/experiences", `{"level":1.5}`, 400, `field "level" must be a whole number`},
		{"EmptyBody", "POST", msgs, ``, 400, "empty"},
		{"UnknownThread", "POST", "/api/v1/threads/6f1c1d7e-0000-4000-8000-000000000000/messages", `{"content":"hi"}`, 404, "not found"},
		{"BadThreadID", "POST", "/api/v1/threads/nope/messages", `{"content":"hi"}`, 404, "not found"},
		{"ListUnknownThread", "GET", "/api/v1/threads/6f1c1d7e-0000-4000-8000-000000000000/messages", ``, 404, "not found"},
		{"ContextUnknownThread", "GET", "/api/v1/threads/nope/context", ``, 404, "not found"},
		{"ThreadTitleNUL", "POST", "/api/v1/threads", `{"title":"a\u0000"}`, 400, "NUL"},
		{"ThreadTitleTooLong", "POST", "/api/v1/threads", `{"title":"` + strings.Repeat("x", 201) + `"}`, 400, "limit"},
		{"ThreadMalformed", "POST", "/api/v1/threads", `{`, 400, "malformed"},
		{"ClientIDTooLong", "POST", msgs, `{"content":"hi","client_id":"` + strings.Repeat("c", 201) + `"}`, 400, "client_id"},
		{"UnknownTurn", "GET", "/api/v1/turns/nope", ``, 404, "not found"},
		{"UnknownRoute", "GET", "/api/v1/nothing", ``, 404, "no such endpoint"},
		{"WrongMethod", "DELETE", "/api/v1/threads", ``, 405, "not allowed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := s.counts(t)
			var resp struct{ Error string }
			code := s.do(t, tc.method, tc.path, tc.body, &resp)
			if code != tc.status {
				t.Fatalf("status %d, want %d (%q)", code, tc.status, resp.Error)
			}
			if resp.Error == "" || !strings.Contains(resp.Error, tc.says) {
				t.Fatalf("error %q does not say %q", resp.Error, tc.says)
			}
			if diff := cmp.Diff(before, s.counts(t)); diff != "" {
				t.Fatalf("database changed (-before +after):\n%s", diff)
			}
		})
	}
}

func TestBodyTooLarge(t *testing.T) {
	s := mustStack(t, nil, turn.Config{})
	thread := s.mustThread(t)
	before := s.counts(t)
	var resp struct{ Error string }
	code := s.do(t, "POST", "/api/v1/threads/"+thread+"/messages", `{"content":"`+strings.Repeat("x", 3<<20)+`"}`, &resp)
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(resp.Error, "larger than") {
		t.Fatalf("status %d, error %q", code, resp.Error)
	}
	if diff := cmp.Diff(before, s.counts(t)); diff != "" {
		t.Fatalf("database changed:\n%s", diff)
	}
}
