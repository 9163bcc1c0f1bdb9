package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"yakor/turn"
)

// countingModel answers every request "Answer n." (n counting its
// answers), but fails the first request whose last message says FAIL-ONCE
// with 502 (both of the client's tries); it records what it was sent.
func countingModel(t *testing.T, requests *requestLog) *fakeOpenAI {
	var answers, failed atomic.Int32
	return newFakeOpenAI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		req := requests.record(r)
		msgs := req["messages"].([]any)
		last := fmt.Sprint(msgs[len(msgs)-1].(map[string]any)["content"])
		if strings.Contains(last, "FAIL-ONCE") && failed.Add(1) <= 2 { // both tries of the first attempt
			http.Error(w, `{"error":{"message":"upstream down"}}`, http.StatusBadGateway)
			return
		}
		streamChunks(w, []string{fmt.Sprintf("Answer %d.", answers.Add(1))}, false)
	})
}

// TestStatelessClient: a client that resends its whole conversation every
// time gets one thread with each message stored once; sent again byte for
// byte, an answered request is a regenerate (a new answer, the old one
// superseded: kept, out of the prompt); an edited earlier message starts a
// branch; a retry after a failure is stored once; a long history reaches
// the model as a bounded prompt.
func TestStatelessClient(t *testing.T) {
	var requests requestLog
	s := mustStack(t, countingModel(t, &requests).model(), turn.Config{WindowChars: 2000})
	var convo []any
	say := func(text string) (string, string) {
		convo = append(convo, user(text))
		r := s.complete(t, map[string]any{"user": "sam", "messages": convo})
		reply := r.completion(t).Choices[0].Message.Text()
		convo = append(convo, assistant(reply))
		th, _ := r.thread()
		return th, reply
	}
	thread, _ := say("The sofa is 31500.")
	for _, q := range []string{"The table is 48200.", "And the chairs?"} {
		if th, _ := say(q); th != thread {
			t.Fatalf("a resent conversation went to thread %s, not %s", th, thread)
		}
	}
	stored := func() []message { return s.storedMessages(t, thread) }
	if got := stored(); len(got) != 6 {
		t.Fatalf("three stateless turns stored %d messages, want 6: %+v", len(got), got)
	}

	// Regenerate: the last request again, byte for byte.
	last := convo[:len(convo)-1]
	r := s.complete(t, map[string]any{"user": "sam", "messages": last})
	if again := r.completion(t).Choices[0].Message.Text(); again == convo[len(convo)-1].(map[string]any)["content"] {
		t.Fatalf("a regenerate replayed %q", again)
	}
	got := stored()
	if len(got) != 7 || got[5].SupersededAt == nil || got[6].SupersededAt != nil || got[4].Content != "And the chairs?" {
		t.Fatalf("after a regenerate: %+v", got)
	}
	requests.take()

	// Edit: the second question changed; the old branch leaves the prompt.
	edited := []any{convo[0], convo[1], user("The table is 50000 now.")}
	s.complete(t, map[string]any{"user": "sam", "messages": edited}).completion(t)
	sent := fmt.Sprint(requests.take()[0]["messages"])
	if strings.Contains(sent, "48200") || strings.Contains(sent, "chairs") || !strings.Contains(sent, "31500") {
		t.Fatalf("the edited branch's prompt: %s", sent)
	}
	live := 0
	for _, m := range stored() {
		if m.SupersededAt == nil {
			live++
		}
	}
	if got := stored(); len(got) != 9 || live != 4 {
		t.Fatalf("after an edit: %d stored, %d on the branch: %+v", len(got), live, got)
	}

	// A retry after a 502 stores the message once.
	retry := []any{convo[0], convo[1], user("The table is 50000 now."), assistant("Answer 6."), user("FAIL-ONCE: what is the total?")}
	if r := s.complete(t, map[string]any{"user": "sam", "messages": retry}); r.code != http.StatusBadGateway {
		t.Fatalf("first try: %d %s", r.code, r.body)
	}
	s.complete(t, map[string]any{"user": "sam", "messages": retry}).completion(t)
	n := 0
	for _, m := range stored() {
		if strings.HasPrefix(m.Content, "FAIL-ONCE") {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("the retried message is stored %d times", n)
	}

	// A long history of a conversation Yakor has not seen: stored once, and
	// the model gets a bounded prompt.
	var long []any
	for i := range 500 {
		long = append(long, user(fmt.Sprintf("Note %d: %s", i, strings.Repeat("words ", 20))), assistant(fmt.Sprintf("Noted %d.", i)))
	}
	long = append(long, user("What was note 3?"))
	requests.take()
	r = s.complete(t, map[string]any{"user": "lena", "messages": long})
	r.completion(t)
	chars := 0
	for _, m := range requests.take()[0]["messages"].([]any) {
		chars += len(fmt.Sprint(m.(map[string]any)["content"]))
	}
	if chars > 12_000 {
		t.Fatalf("a 1,000-message history reached the model as %d characters", chars)
	}
}
