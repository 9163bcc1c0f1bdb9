package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"yakor/turn"
	"yakor/web/oaicompat"
)

// faultServer is an OpenAI-compatible chat server that fails as told: it
// answers, or times out, or answers 500, or 429 with Retry-After (on every
// request, or on the first only), or drops its stream midway. It records
// when each request since the last set arrived.
type faultServer struct {
	*fakeOpenAI
	mu    sync.Mutex
	fault string
	times []time.Time
}

// The faults.
const (
	faultNone     = "none"
	faultTimeout  = "timeout"  // no answer within the client's timeout
	fault500      = "500"      // every attempt answers 500
	fault429      = "429"      // every attempt answers 429, Retry-After: 1
	fault429Once  = "429-once" // the first attempt answers 429, Retry-After: 1; the next ones answer
	faultDropped  = "dropped"  // the SSE stream is cut after its first chunk
	faultReply    = "The total is 4650."
	faultPartial  = "The total is" // what a dropped stream sent
	faultRateText = "Rate limit reached for fake-1 on requests per min"
)

func newFaultServer(tb testing.TB) *faultServer {
	f := &faultServer{fault: faultNone}
	f.fakeOpenAI = newFakeOpenAI(tb, func(w http.ResponseWriter, r *http.Request, _ int) {
		f.mu.Lock()
		f.times = append(f.times, time.Now())
		fault, attempt := f.fault, len(f.times)
		f.mu.Unlock()
		switch {
		case fault == faultTimeout:
			select { // longer than the client's 2 s a try
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		case fault == fault500:
			http.Error(w, `{"error":{"message":"upstream exploded","type":"server_error"}}`, http.StatusInternalServerError)
		case fault == fault429 || fault == fault429Once && attempt == 1:
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprintf(w, `{"error":{"message":%q,"type":"requests","code":"rate_limit_exceeded"}}`, faultRateText)
		case fault == faultDropped:
			streamChunks(w, []string{"The total ", "is"}, true)
		default:
			streamChunks(w, []string{"The total ", "is 4650."}, false)
		}
	})
	return f
}

// set makes the server fail with fault from now on and forgets the
// requests so far.
func (f *faultServer) set(fault string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fault, f.times = fault, nil
}

// requests returns when each request since the last set arrived.
func (f *faultServer) requests() []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Time(nil), f.times...)
}

// sent is what a client saw of a send: the status, the reply's text (the
// deltas, streamed), and an error's message, whether it came inside a
// started stream, and its OpenAI shape (on /v1).
type sent struct {
	status   int
	reply    string
	err      string
	inStream bool
	openAI   *oaicompat.ErrorBody
	done     bool // a /v1 stream ended with [DONE]
}

// api sends content with a client id to a thread one of four ways.
type api struct {
	name    string
	streams bool // the reply streams (so a failure after text is an event)
	send    func(t *testing.T, s *stack, thread, content, clientID string) sent
}

var faultAPIs = []api{
	{"Native", false, func(t *testing.T, s *stack, thread, content, clientID string) sent {
		var r turnResp
		code := s.do(t, "POST", "/api/v1/threads/"+thread+"/messages", jsonBody(map[string]string{"content": content, "client_id": clientID}), &r)
		return sent{status: code, reply: r.Reply.Content, err: r.Error}
	}},
	{"NativeSSE", true, func(t *testing.T, s *stack, thread, content, clientID string) sent {
		body := jsonBody(map[string]string{"content": content, "client_id": clientID})
		r := s.chat(t, "", "POST", "/api/v1/threads/"+thread+"/messages", body, "Accept", "text/event-stream")
		if !strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream") {
			var e struct{ Error string }
			if err := json.Unmarshal([]byte(r.body), &e); err != nil {
				t.Fatalf("status %d, body %q", r.code, r.body)
			}
			return sent{status: r.code, err: e.Error}
		}
		out := sent{status: r.code}
		for _, ev := range parseSSE(t, r.body) {
			switch ev.name {
			case "delta":
				out.reply += ev.data["text"].(string)
			case "error":
				out.err, out.inStream = ev.data["error"].(string), true
			}
		}
		return out
	}},
	{"OpenAI", false, func(t *testing.T, s *stack, thread, content, clientID string) sent {
		r := s.complete(t, map[string]any{"messages": []any{user(content)}}, "X-Yakor-Thread", thread, "Idempotency-Key", clientID)
		if r.code != http.StatusOK {
			e := r.openAIError(t, r.code)
			return sent{status: r.code, err: e.Message, openAI: &e}
		}
		return sent{status: r.code, reply: r.completion(t).Choices[0].Message.Text()}
	}},
	{"OpenAIStream", true, func(t *testing.T, s *stack, thread, content, clientID string) sent {
		r := s.complete(t, map[string]any{"messages": []any{user(content)}, "stream": true}, "X-Yakor-Thread", thread, "Idempotency-Key", clientID)
		if r.code != http.StatusOK {
			e := r.openAIError(t, r.code)
			return sent{status: r.code, err: e.Message, openAI: &e}
		}
		chunks, streamErr, done := r.chunks(t)
		out := sent{status: r.code, done: done}
		for _, c := range chunks {
			if len(c.Choices) > 0 && c.Choices[0].Delta.Content != nil {
				out.reply += *c.Choices[0].Delta.Content
			}
		}
		if streamErr != nil {
			out.err, out.inStream, out.openAI = streamErr.Message, true, streamErr
		}
		return out
	}},
}

// TestModelServerFaults: each fault of the model server, through each of
// the four ways to send (native JSON and SSE, /v1 plain and streamed),
// gives the documented status and a message naming the cause (in OpenAI's
// shape on /v1), keeps the user's message exactly once, records the turn
// as failed with the reason and stores no reply; sending again (same
// client id) is answered, still with the message once. A 429 that clears
// on the retry the Retry-After asked for is answered at once.
func TestModelServerFaults(t *testing.T) {
	fake := newFaultServer(t)
	s := mustStack(t, fake.model(), turn.Config{})

	for _, tc := range []struct {
		fault  string
		status int    // before the stream starts
		says   string // in the client's error and the turn's
		code   string // OpenAI's error code on /v1 ("" is null)
	}{
		{faultTimeout, http.StatusGatewayTimeout, "did not answer in time", "timeout"},
		{fault500, http.StatusBadGateway, "status 500: upstream exploded", ""},
		{fault429, http.StatusBadGateway, "status 429: " + faultRateText, ""},
		{faultDropped, http.StatusBadGateway, "stream broken", ""},
	} {
		for _, a := range faultAPIs {
			t.Run(tc.fault+"/"+a.name, func(t *testing.T) {
				thread := s.mustThread(t)
				content, clientID := "board 3400 plus panel 1250? ("+tc.fault+" "+a.name+")", "c-"+tc.fault+"-"+a.name
				fake.set(tc.fault)
				got := a.send(t, s, thread, content, clientID)

				streamed := tc.fault == faultDropped && a.streams
				switch {
				case streamed && (got.status != http.StatusOK || !got.inStream || got.reply != faultPartial || got.done):
					t.Fatalf("a stream cut after %q: %+v; want the text so far, then an error event", faultPartial, got)
				case !streamed && (got.status != tc.status || got.inStream):
					t.Fatalf("got %+v, want status %d", got, tc.status)
				case !strings.Contains(got.err, tc.says) || strings.Contains(got.err, strings.TrimPrefix(fake.URL, "http://")):
					t.Fatalf("error %q does not say %q, or names the model server's address %s", got.err, tc.says, fake.URL)
				}
				if strings.HasPrefix(a.name, "OpenAI") {
					if e := got.openAI; e == nil || e.Type != "server_error" || e.Param != nil || (e.Code == nil) != (tc.code == "") || e.Code != nil && *e.Code != tc.code {
						t.Fatalf("OpenAI error %+v, want a server_error with code %q", e, tc.code)
					}
				}
				switch n := len(fake.requests()); {
				case tc.fault == faultTimeout && n != 1:
					t.Fatalf("the model server got %d requests, want 1 (a timeout uses up the call's time: no retry)", n)
				case tc.fault == faultDropped && n != 1:
					t.Fatalf("the model server got %d requests, want 1 (a stream broken after text is not retried)", n)
				case tc.fault != faultTimeout && tc.fault != faultDropped && n != 2:
					t.Fatalf("the model server got %d requests, want 2 (a try and one retry)", n)
				}
				if r := fake.requests(); tc.fault == fault429 && r[1].Sub(r[0]) < time.Second {
					t.Fatalf("retried after %v, before the Retry-After of 1s", r[1].Sub(r[0]))
				}
				checkStored(t, s, thread, content, false)
				trs := s.turnsOf(t, thread)
				if len(trs) != 1 || trs[0].Status != "failed" || !strings.Contains(trs[0].Error, tc.says) || trs[0].ReplyMessageID != 0 {
					t.Fatalf("turns %+v, want one failed saying %q", trs, tc.says)
				}

				fake.set(faultNone)
				if got := a.send(t, s, thread, content, clientID); got.status != http.StatusOK || got.err != "" || got.reply != faultReply {
					t.Fatalf("resend: %+v", got)
				}
				checkStored(t, s, thread, content, true)
				if trs := s.turnsOf(t, thread); len(trs) != 2 || trs[0].Status != "failed" || trs[1].Status != "ok" || trs[1].ReplyMessageID == 0 {
					t.Fatalf("turns after the resend %+v, want the failed one and an ok one", trs)
				}
			})
		}
	}

	for _, a := range faultAPIs {
		t.Run("429Recovers/"+a.name, func(t *testing.T) {
			thread := s.mustThread(t)
			content := "board 3400 plus panel 1250? (429 recovers " + a.name + ")"
			fake.set(fault429Once)
			if got := a.send(t, s, thread, content, "c-429-once-"+a.name); got.status != http.StatusOK || got.err != "" || got.reply != faultReply {
				t.Fatalf("got %+v, want the reply after a retry", got)
			}
			r := fake.requests()
			if len(r) != 2 {
				t.Fatalf("the model server got %d requests, want 2", len(r))
			}
			if r[1].Sub(r[0]) < time.Second {
				t.Fatalf("retried after %v, before the Retry-After of 1s", r[1].Sub(r[0]))
			}
			checkStored(t, s, thread, content, true)
			if trs := s.turnsOf(t, thread); len(trs) != 1 || trs[0].Status != "ok" || trs[0].ReplyMessageID == 0 {
				t.Fatalf("turns %+v, want one ok", trs)
			}
		})
	}
}

// checkStored fails unless the thread holds the user's message exactly
// once, followed by the reply when answered and by nothing otherwise.
func checkStored(t *testing.T, s *stack, thread, content string, answered bool) {
	t.Helper()
	msgs := s.storedMessages(t, thread)
	want := 1
	if answered {
		want = 2
	}
	if len(msgs) != want || msgs[0].Role != "user" || msgs[0].Content != content {
		t.Fatalf("stored %+v, want the user's message once%s", msgs, map[bool]string{true: " and the reply", false: " and no reply"}[answered])
	}
	if answered && (msgs[1].Role != "assistant" || msgs[1].Content != faultReply) {
		t.Fatalf("stored reply %+v, want %q", msgs[1], faultReply)
	}
}
