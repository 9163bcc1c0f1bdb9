package app_test

import (
	"net/http"
	"strings"
	"testing"

	"yakor/app"
	"yakor/app/apptest"
)

// call sends a JSON request to s and decodes the answer into out.
func call(t *testing.T, s *apptest.Server, method, path, body string, out any) int {
	t.Helper()
	return apptest.Call(t, s.URL, "", method, path, body, out).Status
}

// TestApp boots the whole graph on a free port and runs a turn through
// it over HTTP; the inline job queue then anchors the thread when asked.
func TestApp(t *testing.T) {
	s := apptest.New(t, apptest.Config(), app.WithInlineJobs())
	if s.Addr() == "" || strings.HasSuffix(s.Addr(), ":0") {
		t.Fatalf("listening on %q", s.Addr())
	}
	var info struct{ Version string }
	if code := call(t, s, "GET", "/api/v1/info", "", &info); code != http.StatusOK || info.Version == "" {
		t.Fatalf("info: %d %+v", code, info)
	}
	var th struct{ ID string }
	if code := call(t, s, "POST", "/api/v1/threads", `{"title":"t"}`, &th); code != http.StatusCreated {
		t.Fatalf("create thread: %d", code)
	}
	var turn struct{ Reply struct{ Content string } }
	if code := call(t, s, "POST", "/api/v1/threads/"+th.ID+"/messages", `{"content":"The price list: board 3400, panel 1250."}`, &turn); code != http.StatusOK || turn.Reply.Content == "" {
		t.Fatalf("send: %d %+v", code, turn)
	}
	var list struct{ Anchors []struct{ Topic string } }
	if call(t, s, "GET", "/api/v1/threads/"+th.ID+"/anchors", "", &list); len(list.Anchors) != 0 {
		t.Fatalf("anchored before the jobs ran: %+v", list)
	}
	if err := s.Inline.RunPending(t.Context()); err != nil {
		t.Fatal(err)
	}
	if code := call(t, s, "GET", "/api/v1/threads/"+th.ID+"/anchors", "", &list); code != http.StatusOK || len(list.Anchors) == 0 {
		t.Fatalf("anchors after the jobs ran: %d %+v", code, list)
	}
}
