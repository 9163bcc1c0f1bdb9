package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"yakor/postgres/pgtest"
)

// clientStack is `yakor serve` over a canned model, with a key.
type clientStack struct {
	srv   *server
	model *cannedModel
	key   string
}

// startClientStack starts the canned model and `yakor serve` on it (the
// helpers offline, no retries of the model's calls, so that a 502 reaches
// the client), and makes a key.
func startClientStack(t *testing.T) *clientStack {
	model := newCannedModel(t)
	s := startServer(t, pgtest.DataDir(t), "--openai-base-url", model.URL+"/v1", "--chat-model", "canned-1",
		"--helper-provider", "offline", "--embed-provider", "offline", "--model-retries", "0")
	var key struct{ Secret string }
	if code := s.call(t, "POST", "/api/v1/keys", `{"name":"clients","role":"backend","rate_per_minute":100000,"max_turns":100}`, &key); code != http.StatusCreated || key.Secret == "" {
		t.Fatalf("make a key: %d", code)
	}
	return &clientStack{srv: s, model: model, key: key.Secret}
}

// run runs a client script with node and decodes what it prints.
func (cs *clientStack) run(t *testing.T, script string, out any) {
	t.Helper()
	node, dir := nodeFor(t, "openai", "ai", "@ai-sdk/openai", "@ai-sdk/openai-compatible", "@langchain/openai", "@langchain/core", "zod")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", script))
	cmd.Env = append(os.Environ(), "YAKOR_BASE_URL=http://"+cs.srv.addr+"/v1", "YAKOR_KEY="+cs.key, "YAKOR_NODE_DIR="+dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s failed: %v\n%s\nserver log:\n%s", script, err, stderr.String(), cs.srv.log)
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		t.Fatalf("%s printed %q: %v", script, stdout.String(), err)
	}
}

// threadsOf lists the end user's threads and their messages.
func (cs *clientStack) threadsOf(t *testing.T, user string) map[string][]string {
	t.Helper()
	var ts struct{ Threads []struct{ ID string } }
	if code := cs.call(t, user, "GET", "/api/v1/threads?limit=500", &ts); code != http.StatusOK {
		t.Fatalf("%s's threads: %d", user, code)
	}
	out := map[string][]string{}
	for _, th := range ts.Threads {
		var ms struct {
			Messages []struct {
				Role, Content string
				Superseded    *string `json:"superseded_at"`
			}
		}
		cs.call(t, user, "GET", "/api/v1/threads/"+th.ID+"/messages?limit=500", &ms)
		for _, m := range ms.Messages {
			if m.Superseded == nil {
				out[th.ID] = append(out[th.ID], m.Role+": "+m.Content)
			}
		}
	}
	return out
}

// call is a native API call with the key, for an end user.
func (cs *clientStack) call(t *testing.T, user, method, path string, out any) int {
	t.Helper()
	req, _ := http.NewRequest(method, "http://"+cs.srv.addr+path, nil)
	req.Header.Set("Authorization", "Bearer "+cs.key)
	req.Header.Set("X-Yakor-User", user)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_ = json.NewDecoder(resp.Body).Decode(out)
	return resp.StatusCode
}

// once fails unless every message of the user's threads is stored once,
// and the user has want threads.
func (cs *clientStack) once(t *testing.T, user string, want int) map[string][]string {
	t.Helper()
	threads := cs.threadsOf(t, user)
	if len(threads) != want {
		t.Fatalf("%s has %d threads, want %d: %v", user, len(threads), want, threads)
	}
	for th, msgs := range threads {
		seen := map[string]bool{}
		for _, m := range msgs {
			if seen[m] && strings.HasPrefix(m, "user: ") {
				t.Fatalf("%s's thread %s stores %q twice: %v", user, th, m, msgs)
			}
			seen[m] = true
		}
	}
	return threads
}

// TestClientOpenAI runs the official openai client (testdata
// clients_openai.mjs) and checks what the server stored: the stateless
// conversation in one thread, each message once; the retried message once.
func TestClientOpenAI(t *testing.T) {
	cs := startClientStack(t)
	var got struct{ Stateless int }
	cs.run(t, "clients_openai.mjs", &got)
	threads := cs.once(t, "oa-stateless", 1)
	for _, msgs := range threads {
		if len(msgs) != got.Stateless {
			t.Fatalf("the stateless conversation of %d messages is stored as %d: %v", got.Stateless, len(msgs), msgs)
		}
	}
	cs.once(t, "oa-tools", 1)
	cs.once(t, "oa-resp", 1)
	reqs := cs.model.take()
	sawCallerTools(t, reqs)
	sawFormat(t, reqs, "json_schema")
	cs.retriedOnce(t, "oa-retry", reqs)
}

// TestClientAISDK runs the Vercel AI SDK (testdata clients_aisdk.mjs):
// the Responses API's stateless conversation is one thread, each message
// stored once; the tool loop and structured output work through both
// models.
func TestClientAISDK(t *testing.T) {
	cs := startClientStack(t)
	var got struct{ RespMessages, ToolSteps int }
	cs.run(t, "clients_aisdk.mjs", &got)
	for _, msgs := range cs.once(t, "ai-resp", 1) {
		if len(msgs) < got.RespMessages {
			t.Fatalf("the conversation of %d messages is stored as %v", got.RespMessages, msgs)
		}
	}
	if got.ToolSteps != 2 {
		t.Fatalf("the tool loop took %d steps", got.ToolSteps)
	}
	cs.once(t, "ai-tools", 1)
	cs.once(t, "ai-compat", 1)
	reqs := cs.model.take()
	sawCallerTools(t, reqs)
	sawFormat(t, reqs, "json_schema")
}

// TestClientLangChain runs LangChain JS (testdata clients_langchain.mjs):
// the bindTools conversation, resent whole each time, is one thread with
// each message once; the retried message is stored once.
func TestClientLangChain(t *testing.T) {
	cs := startClientStack(t)
	var got struct{ ToolMessages int }
	cs.run(t, "clients_langchain.mjs", &got)
	for _, msgs := range cs.once(t, "lc-tools", 1) {
		if len(msgs) != got.ToolMessages {
			t.Fatalf("the conversation of %d messages is stored as %d: %v", got.ToolMessages, len(msgs), msgs)
		}
	}
	cs.once(t, "lc-two", 1)
	reqs := cs.model.take()
	sawCallerTools(t, reqs)
	cs.retriedOnce(t, "lc-retry", reqs)
}

// offered is the names of the tools a request offered the model.
func offered(req map[string]any) []string {
	var names []string
	tools, _ := req["tools"].([]any)
	for _, raw := range tools {
		tool, _ := raw.(map[string]any)
		f, _ := tool["function"].(map[string]any)
		name, _ := f["name"].(string)
		names = append(names, name)
	}
	return names
}

// sawCallerTools fails unless some request offered the model the caller's
// get_weather beside Yakor's own search (a name of Yakor's, yakor_…).
func sawCallerTools(t *testing.T, reqs []map[string]any) {
	t.Helper()
	var all []string
	for _, req := range reqs {
		names := strings.Join(offered(req), " ")
		if strings.Contains(names, "get_weather") && strings.Contains(names, "yakor_") {
			return
		}
		all = append(all, "["+names+"]")
	}
	t.Fatalf("no request of %d offered get_weather beside Yakor's search: %v", len(reqs), all)
}

// sawFormat fails unless some request asked the model for a response
// format of the type.
func sawFormat(t *testing.T, reqs []map[string]any, typ string) {
	t.Helper()
	for _, req := range reqs {
		if f, _ := req["response_format"].(map[string]any); f["type"] == typ {
			return
		}
	}
	t.Fatalf("no request of %d asked the model for response_format %s", len(reqs), typ)
}

// lastSays counts the requests whose last message says s.
func lastSays(reqs []map[string]any, s string) int {
	n := 0
	for _, req := range reqs {
		msgs, _ := req["messages"].([]any)
		if len(msgs) == 0 {
			continue
		}
		if last, _ := msgs[len(msgs)-1].(map[string]any); strings.Contains(fmt.Sprint(last["content"]), s) {
			n++
		}
	}
	return n
}

// retriedOnce fails unless the user's message that failed once with 502
// and was retried by the client is stored once, with one reply, and
// reached the model twice (the failure and the retry: Yakor retried
// nothing).
func (cs *clientStack) retriedOnce(t *testing.T, user string, reqs []map[string]any) {
	t.Helper()
	for _, msgs := range cs.once(t, user, 1) {
		if len(msgs) != 2 {
			t.Fatalf("a retried message: %v", msgs)
		}
	}
	if n := lastSays(reqs, "FAIL-ONCE"); n != 2 {
		t.Fatalf("the model got the failing message %d times, want 2 (the failure and the client's retry)", n)
	}
}
