package web

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"
)

// registerOpenAPIRoutes serves the native API's OpenAPI description: it
// holds no user's data, so it needs no key.
func registerOpenAPIRoutes(e *gin.Engine) {
	e.GET("/api/v1/openapi.json", func(c *gin.Context) {
		c.Data(http.StatusOK, "application/json", OpenAPI())
	})
}

var (
	openAPIOnce sync.Once
	openAPIDoc  []byte
)

// OpenAPI is the OpenAPI 3.1 description of the API (docs/openapi.json).
func OpenAPI() []byte {
	openAPIOnce.Do(func() {
		doc, err := json.MarshalIndent(openAPIDocument(), "", "  ")
		if err != nil {
			panic("openapi: " + err.Error()) // the tables are the program's own
		}
		openAPIDoc = append(doc, '\n')
	})
	return openAPIDoc
}

// pathParam finds the {name} parameters of a path.
var pathParam = regexp.MustCompile(`\{([a-z]+)\}`)

// openAPIDocument builds the description from openAPIRoutes and
// openAPISchemas.
func openAPIDocument() map[string]any {
	schemas := map[string]json.RawMessage{}
	for name, s := range openAPISchemas {
		schemas[name] = json.RawMessage(s)
	}
	paths := map[string]map[string]any{}
	for _, r := range openAPIRoutes {
		if paths[r.path] == nil {
			paths[r.path] = map[string]any{}
		}
		paths[r.path][strings.ToLower(r.method)] = operation(r)
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{"title": "Yakor", "version": "1",
			"description": "Dialogue memory for LLM assistants: the native API under /api/v1 and an OpenAI-compatible endpoint under /v1. docs/api.md says what each route does."},
		"servers":    []any{map[string]string{"url": "http://127.0.0.1:8080"}},
		"security":   []any{map[string]any{"bearer": []string{}}},
		"paths":      paths,
		"components": map[string]any{"schemas": schemas, "securitySchemes": map[string]any{"bearer": map[string]string{"type": "http", "scheme": "bearer", "description": "a Yakor API key; none while the server runs keyless on loopback"}}},
	}
}

// operation is one route as an OpenAPI operation.
func operation(r apiRoute) map[string]any {
	op := map[string]any{"summary": r.summary, "tags": []string{r.tag}, "operationId": operationID(r)}
	params := []any{map[string]any{"name": "X-Yakor-User", "in": "header", "required": false,
		"description": "the end user an admin or backend key acts for", "schema": map[string]string{"type": "string"}}}
	for _, m := range pathParam.FindAllStringSubmatch(r.path, -1) {
		params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": map[string]string{"type": "string"}})
	}
	for _, q := range r.query {
		parts := strings.SplitN(q, ":", 3)
		params = append(params, map[string]any{"name": parts[0], "in": "query", "required": false, "description": parts[2], "schema": map[string]string{"type": parts[1]}})
	}
	op["parameters"] = params
	if r.body != "" {
		media := map[string]any{"schema": ref(r.body)}
		if r.example != "" {
			media["example"] = json.RawMessage(r.example)
		}
		op["requestBody"] = map[string]any{"required": true, "content": map[string]any{"application/json": media}}
	}
	ok := map[string]any{"description": "success"}
	if r.resp != "" {
		ok["content"] = map[string]any{"application/json": map[string]any{"schema": ref(r.resp)}}
	}
	errBody := map[string]any{"application/json": map[string]any{"schema": ref("Error")}}
	op["responses"] = map[string]any{
		strconv.Itoa(r.status): ok,
		"4XX":                  map[string]any{"description": "refused: the message says why (docs/api.md#errors)", "content": errBody},
		"5XX":                  map[string]any{"description": "the model server or the database failed", "content": errBody},
	}
	return op
}

func ref(name string) map[string]string {
	return map[string]string{"$ref": "#/components/schemas/" + name}
}

// operationID names an operation: its method and path in words.
func operationID(r apiRoute) string {
	id := strings.ToLower(r.method)
	for _, part := range strings.Split(r.path, "/") {
		part = strings.Trim(part, "{}")
		if part == "" || part == "api" || part == "v1" {
			continue
		}
		part = strings.NewReplacer(".", "_", "-", "_").Replace(part)
		id += "_" + part
	}
	return id
}
