package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	verrors "github.com/pb33f/libopenapi-validator/errors"

	"yakor/turn"
	"yakor/web"
)

// openAPIFile is the description kept in the repository.
var openAPIFile = filepath.Join("..", "docs", "openapi.json")

// TestOpenAPI: the OpenAPI description served at /api/v1/openapi.json is a
// valid OpenAPI 3.1 document (libopenapi-validator), the same as
// docs/openapi.json (YAKOR_UPDATE_OPENAPI=1 rewrites it), names every
// route the router has and no other, its examples validate against it, and
// real requests and responses through the real router validate against it.
func TestOpenAPI(t *testing.T) {
	s := mustStack(t, nil, turn.Config{})
	var served bytes.Buffer
	resp, err := http.Get(s.URL + "/api/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(&served, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Equal(served.Bytes(), web.OpenAPI()) {
		t.Fatalf("GET /api/v1/openapi.json: %d", resp.StatusCode)
	}
	checkOpenAPIFile(t)
	doc, err := libopenapi.NewDocument(web.OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatalf("validator: %v", errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		for _, e := range verrs {
			t.Errorf("document: %s: %s", e.Message, e.Reason)
		}
		t.FailNow()
	}
	checkRoutesDescribed(t, s)
	checkExamples(t, v)
	checkRealTraffic(t, s, v)
}

func checkOpenAPIFile(t *testing.T) {
	t.Helper()
	if os.Getenv("YAKOR_UPDATE_OPENAPI") == "1" {
		if err := os.WriteFile(openAPIFile, web.OpenAPI(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	kept, err := os.ReadFile(openAPIFile)
	if err != nil || !bytes.Equal(kept, web.OpenAPI()) {
		t.Fatalf("docs/openapi.json is not the served description (%v): run YAKOR_UPDATE_OPENAPI=1 go test ./web -run TestOpenAPI", err)
	}
}

// ginParam is a gin path parameter.
var ginParam = regexp.MustCompile(`[:*]([a-z]+)`)

func checkRoutesDescribed(t *testing.T, s *stack) {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]any
	}
	if err := json.Unmarshal(web.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	described := map[string]bool{}
	for path, ops := range doc.Paths {
		for method := range ops {
			described[strings.ToUpper(method)+" "+path] = true
		}
	}
	routed := map[string]bool{"GET /api/v1/openapi.json": true}
	for _, r := range web.Routes(s.srv) {
		if r == "GET /" || strings.Contains(r, "/assets/") {
			continue // the web chat
		}
		r = strings.Replace(r, "*id", "{model}", 1)
		r = ginParam.ReplaceAllString(r, "{$1}")
		routed[r] = true
		if !described[r] {
			t.Errorf("route %s is not described", r)
		}
	}
	for r := range described {
		if !routed[r] {
			t.Errorf("%s is described but not routed", r)
		}
	}
}

func checkExamples(t *testing.T, v validator.Validator) {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody struct {
				Content map[string]struct{ Example json.RawMessage }
			}
		}
	}
	if err := json.Unmarshal(web.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, ops := range doc.Paths {
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

func checkRealTraffic(t *testing.T, s *stack, v validator.Validator) {
	t.Helper()
	call := func(method, path, body string) map[string]any {
		t.Helper()
		req, _ := http.NewRequest(method, s.URL+path, strings.NewReader(body))
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
