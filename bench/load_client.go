package bench

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// loadClient runs the bench's conversations as real clients would: one
// send at a time in each conversation, each with its own client id, and a
// send that failed with a 5xx, a 409 (its earlier attempt still being
// answered) or a broken connection retried with the same id, with
// exponential backoff and the server's Retry-After.
type loadClient struct {
	url      string
	http     *http.Client
	retryFor time.Duration
	run      string // this run's prefix of client ids
	stats    loadStats
}

func newLoadClient(url string, o loadOptions) *loadClient {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = o.Conversations + 16
	tr.MaxIdleConnsPerHost = o.Conversations + 16
	var id [4]byte
	_, _ = rand.Read(id[:])
	return &loadClient{url: url, http: &http.Client{Transport: tr, Timeout: o.RequestTimeout}, retryFor: o.RetryFor,
		run: "load-" + hex.EncodeToString(id[:])}
}

// loadConv is one thread of the run and what was sent in it.
type loadConv struct {
	index  int
	thread string
	sent   []sentTurn
}

// sentTurn is one message and what the server acknowledged for it;
// unanswered is the last message of a conversation that gave up on it,
// which may or may not be stored.
type sentTurn struct {
	clientID, content string
	userID, replyID   int64
	unanswered        bool
}

// turnReply is the part of a send's answer the bench checks.
type turnReply struct {
	UserMessage loadMessage `json:"user_message"`
	Reply       loadMessage `json:"reply"`
	TurnID      string      `json:"turn_id"`
	Replayed    bool        `json:"replayed"`
}

// loadMessage is a message as the API lists it (and as the database holds it).
type loadMessage struct {
	ID       int64  `json:"id"`
	Role     string `json:"role"`
	Kind     string `json:"kind"`
	Content  string `json:"content"`
	ClientID string `json:"client_id"`
	TurnID   string `json:"turn_id"`
}

// threads creates n threads, one per conversation.
func (c *loadClient) threads(ctx context.Context, n int) ([]*loadConv, error) {
	convs := make([]*loadConv, n)
	for i := range convs {
		status, body, _, err := c.do(ctx, "POST", "/api/v1/threads", []byte(fmt.Sprintf(`{"title":"bench load %d"}`, i)))
		if err == nil && status != http.StatusCreated {
			err = fmt.Errorf("status %d: %s", status, body)
		}
		var th struct{ ID string }
		if err == nil {
			err = json.Unmarshal(body, &th)
		}
		if err != nil {
			return nil, fmt.Errorf("bench load: create thread: %w", err)
		}
		convs[i] = &loadConv{index: i, thread: th.ID}
	}
	return convs, nil
}

// converse runs the conversation's turns one after another, calling onTurn
// after each answered one.
func (c *loadClient) converse(ctx context.Context, conv *loadConv, turns int, onTurn func()) error {
	rng := mrand.New(mrand.NewPCG(uint64(conv.index), 13))
	for i := range turns {
		t := sentTurn{clientID: fmt.Sprintf("%s-c%d-t%d", c.run, conv.index, i), content: fmt.Sprintf("[%d.%d] %s", conv.index, i, benchText(rng))}
		r, err := c.send(ctx, conv.thread, t)
		if err != nil {
			t.unanswered = true
			conv.sent = append(conv.sent, t)
			return fmt.Errorf("turn %d: %w", i, err)
		}
		switch {
		case r.UserMessage.Content != t.content || r.UserMessage.ClientID != t.clientID:
			return fmt.Errorf("turn %d: the answer is to another message: %+v", i, r.UserMessage)
		case r.Reply.Role != "assistant" || r.Reply.Content == "" || r.Reply.ID <= r.UserMessage.ID:
			return fmt.Errorf("turn %d: not a reply: %+v", i, r.Reply)
		}
		t.userID, t.replyID = r.UserMessage.ID, r.Reply.ID
		conv.sent = append(conv.sent, t)
		onTurn()
	}
	return nil
}

// send sends one message, retrying as long as the failure is one a retry
// may cure and retryFor has not passed.
func (c *loadClient) send(ctx context.Context, thread string, t sentTurn) (turnReply, error) {
	body, _ := json.Marshal(map[string]string{"content": t.content, "client_id": t.clientID})
	first := time.Now()
	backoff := 100 * time.Millisecond
	for attempt := 0; ; attempt++ {
		start := time.Now()
		status, out, hdr, err := c.do(ctx, "POST", "/api/v1/threads/"+thread+"/messages", body)
		if err == nil && status == http.StatusOK {
			var r turnReply
			if err := json.Unmarshal(out, &r); err != nil {
				return r, fmt.Errorf("decode the answer: %w", err)
			}
			c.stats.success(time.Since(start), attempt, time.Since(first), r.Replayed)
			return r, nil
		}
		kind, msg := failure(status, out, err)
		c.stats.failure(kind, msg)
		retryable := err != nil || status >= 500 || status == http.StatusConflict || status == http.StatusTooManyRequests
		if !retryable || ctx.Err() != nil {
			return turnReply{}, fmt.Errorf("send %s: %s: %s", t.clientID, kind, msg)
		}
		if time.Since(first) > c.retryFor {
			return turnReply{}, fmt.Errorf("send %s: still failing after %v: %s: %s", t.clientID, c.retryFor, kind, msg)
		}
		wait := backoff/2 + mrand.N(backoff/2+1)
		if s, err := strconv.Atoi(hdr.Get("Retry-After")); err == nil && time.Duration(s)*time.Second > wait {
			wait = min(time.Duration(s)*time.Second, 10*time.Second)
		}
		select {
		case <-ctx.Done():
			return turnReply{}, ctx.Err()
		case <-time.After(wait):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// failure names a failed request's kind (its status, or "connection") and
// its message.
func failure(status int, body []byte, err error) (kind, msg string) {
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return "timeout", err.Error()
		}
		return "connection", err.Error()
	}
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error == "" {
		e.Error = string(body)
	}
	return strconv.Itoa(status), e.Error
}

// do sends a request and reads the whole answer.
func (c *loadClient) do(ctx context.Context, method, path string, body []byte) (int, []byte, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.url+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, nil, err
	}
	return resp.StatusCode, out, resp.Header, nil
}

// messages lists a thread's messages through the API.
func (c *loadClient) messages(ctx context.Context, thread string) ([]loadMessage, error) {
	status, body, _, err := c.do(ctx, "GET", "/api/v1/threads/"+thread+"/messages", nil)
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("status %d: %s", status, body)
	}
	var l struct{ Messages []loadMessage }
	if err == nil {
		err = json.Unmarshal(body, &l)
	}
	return l.Messages, err
}

// loadStats counts the clients' requests.
type loadStats struct {
	mu             sync.Mutex
	latencies      []float64 // ms, of successful attempts
	sends          int
	attempts       int
	replayed       int
	failures       map[string]int
	samples        map[string]string
	longestRetried time.Duration
	recovered      time.Time // when the first retried send succeeded
}

func (s *loadStats) success(took time.Duration, retries int, total time.Duration, replayed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latencies = append(s.latencies, ms(took))
	s.sends++
	s.attempts++
	if replayed {
		s.replayed++
	}
	if retries > 0 {
		s.longestRetried = max(s.longestRetried, total)
		if s.recovered.IsZero() {
			s.recovered = time.Now()
		}
	}
}

func (s *loadStats) failure(kind, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.attempts++
	if s.failures == nil {
		s.failures, s.samples = map[string]int{}, map[string]string{}
	}
	s.failures[kind]++
	if _, ok := s.samples[kind]; !ok {
		s.samples[kind] = msg
	}
}

// fill copies the counts into rep.
func (s *loadStats) fill(rep *loadReport) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lat := samples(slices.Clone(s.latencies))
	rep.Turns, rep.Attempts, rep.Retries, rep.Replayed = s.sends, s.attempts, s.attempts-s.sends, s.replayed
	rep.LatencyP50Ms, rep.LatencyP99Ms = lat.pct(50), lat.pct(99)
	if len(lat) > 0 {
		rep.LatencyMaxMs = lat.max()
	}
	rep.Failures, rep.FailureSamples = map[string]int{}, map[string]string{}
	for k, v := range s.failures {
		rep.Failures[k] = v
		rep.FailureSamples[k] = s.samples[k]
	}
	rep.LongestRetriedMs = ms(s.longestRetried)
}
