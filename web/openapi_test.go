package web_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"yakor/turn"
	"yakor/web"
)

// openAPIFile is the description kept in the repository.
var openAPIFile = filepath.Join("..", "docs", "openapi.json")

// TestOpenAPI: the OpenAPI description served at /api/v1/openapi.json is
// docs/openapi.json (YAKOR_UPDATE_OPENAPI=1 rewrites it) and names every
// route the router has and no other. That it is valid OpenAPI 3.1 and that
// its examples and real traffic validate against it is cmd/yakor's
// TestOpenAPIValidates (libopenapi-validator, kept out of this package's
// fuzzing build).
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
	checkRoutesDescribed(t, s)
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
