package llm

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// hintKey is the context key under which an attempt carries its *retryHint.
type hintKey struct{}

// retryHint records what the transport saw of one attempt's responses, which
// go-openai's errors do not expose: the status and the Retry-After header.
type retryHint struct {
	mu         sync.Mutex
	status     int
	retryAfter time.Duration // 0: none given
}

func (h *retryHint) record(status int, header string, now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.status = status
	h.retryAfter = 0
	if retryableStatus(status) {
		h.retryAfter = parseRetryAfter(header, now)
	}
}

func (h *retryHint) get() (status int, retryAfter time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.status, h.retryAfter
}

// hintTransport wraps an http.RoundTripper and fills in the *retryHint that
// the request's context carries, if any.
type hintTransport struct {
	base http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t *hintTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if resp != nil {
		if h, ok := req.Context().Value(hintKey{}).(*retryHint); ok {
			h.record(resp.StatusCode, resp.Header.Get("Retry-After"), time.Now())
		}
		if end, ok := req.Context().Value(endKey{}).(*streamEnd); ok {
			resp.Body = &endReader{ReadCloser: resp.Body, end: end}
		}
	}
	return resp, err
}

// parseRetryAfter reads a Retry-After value, in seconds or as an HTTP date.
// It returns 0 when the value is missing, malformed or in the past.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		if secs > int64(24*time.Hour/time.Second) {
			secs = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// retryableStatus reports whether a response status is worth another attempt.
func retryableStatus(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// retry runs attempt until it succeeds, fails for good, the retries are used
// up or the call's time is: the timeout bounds all of its attempts and the
// waits between them together, so that a caller hears back within it. Each
// attempt runs with what is left of it and a fresh *retryHint in its
// context. It returns the number of attempts made. Failures come back as
// *Error, except a Stream callback's error, which comes back as a
// *callbackError.
func (c *OpenAI) retry(ctx context.Context, op string, attempt func(ctx context.Context) error) (int, error) {
	deadline := time.Now().Add(c.timeout)
	for n := 1; ; n++ {
		hint := &retryHint{}
		actx, cancel := context.WithDeadline(context.WithValue(ctx, hintKey{}, hint), deadline)
		err := attempt(actx)
		attemptTimedOut := errors.Is(actx.Err(), context.DeadlineExceeded)
		cancel()
		if err == nil {
			return n, nil
		}
		var cbErr *callbackError
		if errors.As(err, &cbErr) {
			return n, cbErr
		}
		e, retryable := c.classify(ctx, attemptTimedOut, hint, err)
		if !retryable || n > c.maxRetries {
			return n, e
		}
		_, retryAfter := hint.get()
		wait := c.backoff(n, retryAfter)
		if time.Until(deadline) < wait+minAttempt {
			return n, e // no time left for another attempt
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return n, e
		}
		c.logger.WarnContext(ctx, "model call failed, retrying",
			"op", op, "model", c.model, "server", c.server,
			"attempt", n, "wait", wait, "err", e)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			e, _ := c.classify(ctx, false, &retryHint{}, ctx.Err())
			return n, e
		case <-t.C:
		}
	}
}

// minAttempt is the least time worth starting another attempt with.
const minAttempt = 50 * time.Millisecond

// backoff returns how long to wait before retry number n (1-based): the
// exponential backoff with jitter, or the server's Retry-After when longer,
// capped at the maximum backoff.
func (c *OpenAI) backoff(n int, retryAfter time.Duration) time.Duration {
	d := c.minBackoff
	for i := 1; i < n && d < c.maxBackoff; i++ {
		d *= 2
	}
	d = min(d, c.maxBackoff)
	if half := d / 2; half > 0 {
		d = half + rand.N(half+1)
	}
	return min(max(d, retryAfter), c.maxBackoff)
}

// classify turns an attempt's error into an *Error and says whether another
// attempt may help.
func (c *OpenAI) classify(ctx context.Context, attemptTimedOut bool, hint *retryHint, err error) (*Error, bool) {
	e := &Error{Provider: providerOpenAI, Model: c.model, Server: c.server, Err: err}
	var broken *brokenError
	isBroken := errors.As(err, &broken)
	wrap := func(cause error) error {
		if isBroken {
			return &brokenError{err: cause}
		}
		return cause
	}

	switch cerr := ctx.Err(); {
	case errors.Is(cerr, context.DeadlineExceeded):
		e.Timeout = true
		e.Err = wrap(&timeoutError{err: cerr})
		return e, false
	case cerr != nil:
		e.Err = wrap(cerr)
		return e, false
	case attemptTimedOut:
		e.Timeout = true
		e.Err = wrap(&timeoutError{after: c.timeout, err: context.DeadlineExceeded})
		return e, !isBroken
	}

	if status, msg, ok := statusOf(err); ok {
		e.Status = status
		e.Err = wrap(&upstreamError{msg: msg, err: err})
		return e, retryableStatus(status) && !isBroken
	}
	if status, _ := hint.get(); status >= http.StatusBadRequest {
		e.Status = status
		return e, retryableStatus(status) && !isBroken
	}
	var nerr net.Error
	if errors.As(err, &nerr) && nerr.Timeout() {
		e.Timeout = true
		e.Err = wrap(&timeoutError{err: err})
		return e, !isBroken
	}
	return e, connectionError(err) && !isBroken
}

// connectionError reports whether err is a transport failure worth retrying.
func connectionError(err error) bool {
	var opErr *net.OpError
	return errors.As(err, &opErr) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE)
}

// upstreamError carries a server's error message without go-openai's
// decoration; it unwraps to go-openai's error.
type upstreamError struct {
	msg string
	err error
}

func (e *upstreamError) Error() string { return e.msg }

func (e *upstreamError) Unwrap() error { return e.err }

// statusOf extracts the HTTP status and the server's message from go-openai's
// errors. A mid-stream error event has no status; its message still counts.
func statusOf(err error) (status int, msg string, ok bool) {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		msg = apiErr.Message
		if msg == "" {
			msg = http.StatusText(apiErr.HTTPStatusCode)
		}
		return apiErr.HTTPStatusCode, msg, apiErr.HTTPStatusCode != 0
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) && reqErr.HTTPStatusCode != 0 {
		msg = strings.Join(strings.Fields(string(reqErr.Body)), " ")
		if utf8.RuneCountInString(msg) > 200 {
			msg = string([]rune(msg)[:200]) + "…"
		}
		if msg == "" {
			msg = http.StatusText(reqErr.HTTPStatusCode)
		}
		return reqErr.HTTPStatusCode, msg, true
	}
	return 0, "", false
}
