package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	verrors "github.com/pb33f/libopenapi-validator/errors"

	"yakor/postgres/pgtest"
)

// TestOpenAPIValidates: the description `yakor serve` gives at
// /api/v1/openapi.json is a valid OpenAPI 3.1 document
// (libopenapi-validator), its request examples validate against it, and
// real requests and responses of the real binary validate against it.
func TestOpenAPIValidates(t *testing.T) {
	s := startServer(t, pgtest.DataDir(t))
	base := "http://" + s.addr
	resp, err := http.Get(base + "/api/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/v1/openapi.json: %d", resp.StatusCode)
	}
	parsed, err := libopenapi.NewDocument(doc)
	if err != nil {
		t.Fatal(err)
	}
	v, errs := validator.NewValidator(parsed)
	if len(errs) > 0 {
		t.Fatalf("validator: %v", errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		for _, e := range verrs {
			t.Errorf("document: %s: %s", e.Message, e.Reason)
		}
		t.FailNow()
	}
	checkExamples(t, v, doc)
	checkRealTraffic(t, base, v)
}

func checkExamples(t *testing.T, v validator.Validator, doc []byte) {
	t.Helper()
	var spec struct {
		Paths map[string]map[string]struct {
			RequestBody struct {
				Content map[string]struct{ Example json.RawMessage }
			}
		}
	}
	if err := json.Unmarshal(doc, &spec); err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, ops := range spec.Paths {
		for method, op := range ops {
			ex := op.RequestBody.Content["application/json"].Example
			if len(ex) == 0 {
				continue
			}
			n++
			url := "http://127.0.0.1:8080" + strings.NewReplacer("{id}", "1", "{model}", "yakor").Replace(path)
			req, _ := http.NewRequest(strings.ToUpper(method), url, bytes.NewReader(ex))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer yk_example")
			if ok, errs := v.ValidateHttpRequest(req); !ok {
				t.Errorf("the example of %s %s: %s", method, path, validationText(errs))
			}
		}
	}
	if n < 15 {
		t.Fatalf("only %d examples", n)
	}
}

func checkRealTraffic(t *testing.T, base string, v validator.Validator) {
	t.Helper()
	call := func(method, path, body string) map[string]any {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(raw))
		vreq, _ := http.NewRequest(method, "http://127.0.0.1:8080"+path, strings.NewReader(body))
		vreq.Header.Set("Authorization", "Bearer sk-anything") // keyless: any bearer is the local user's
		if body != "" {
			vreq.Header.Set("Content-Type", "application/json")
		}
		if ok, errs := v.ValidateHttpRequestResponse(vreq, resp); !ok {
			t.Errorf("%s %s (%d %s): %s", method, path, resp.StatusCode, raw, validationText(errs))
		}
		var out map[string]any
		_ = json.Unmarshal(raw, &out)
		return out
	}
	th := call("POST", "/api/v1/threads", `{"title":"openapi"}`)["id"].(string)
	turn := call("POST", "/api/v1/threads/"+th+"/messages", `{"content":"Price list: board 3400, panel 1250. My name is Ann."}`)
	call("POST", "/api/v1/threads/"+th+"/messages", `{"content":"What does a board cost?"}`)
	call("POST", "/api/v1/threads/"+th+"/messages/import", `{"messages":[{"role":"user","content":"The sofa is 31500.","client_id":"m1"}]}`)
	for _, path := range []string{"/api/v1/threads", "/api/v1/threads/" + th, "/api/v1/threads/" + th + "/messages?limit=2",
		"/api/v1/threads/" + th + "/context", "/api/v1/threads/" + th + "/search?q=board", "/api/v1/threads/" + th + "/anchors",
		"/api/v1/turns/" + fmt.Sprint(turn["turn_id"]), "/api/v1/facts", "/api/v1/experiences", "/api/v1/research/topics",
		"/api/v1/research/status", "/api/v1/keys", "/api/v1/info", "/api/v1/users/me/export"} {
		call("GET", path, "")
	}
	call("POST", "/api/v1/threads/"+th+"/context", `{"message":"What is the sofa price?"}`)
	call("POST", "/api/v1/facts", `{"scope":"user","text":"The user likes oak."}`)
	call("POST", "/api/v1/experiences", `{"level":2,"topic":"oak","title":"oak","note":"Oak is hard."}`)
	call("PATCH", "/api/v1/threads/"+th, `{"title":"openapi, renamed"}`)
}

func validationText(errs []*verrors.ValidationError) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "%s (%s); ", e.Message, e.Reason)
		for _, se := range e.SchemaValidationErrors {
			fmt.Fprintf(&b, "[%s at %s] ", se.Reason, se.FieldPath)
		}
	}
	return b.String()
}
