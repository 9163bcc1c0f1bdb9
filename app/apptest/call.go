package apptest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Answer is a server's answer to Call.
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
}

// Call sends a JSON request to base+path, with key as the bearer ("" sends
// none) and the headers (name, value, name, value…), and reads the whole
// answer; a JSON answer is decoded into out when out is not nil. A request
// that cannot be sent, or an answer that does not decode, fails the test.
func Call(tb testing.TB, base, key, method, path, body string, out any, headers ...string) Answer {
	tb.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatalf("%s %s: read the answer: %v", method, path, err)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			tb.Fatalf("%s %s: decode %q: %v", method, path, b, err)
		}
	}
	return Answer{Status: resp.StatusCode, Header: resp.Header, Body: b}
}
