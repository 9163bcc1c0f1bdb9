package web_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"yakor/web"
)

// fuzzBodyLimit is FuzzDecode's body limit, small so that the fuzzer
// reaches it.
const fuzzBodyLimit = 1024

// namedField finds the field a decode error names.
var namedField = regexp.MustCompile(`field "([^"]*)"`)

// FuzzDecode sends each body to every request type the native API decodes,
// through the real decode and error rendering (an in-process gin engine,
// no database). A body is refused with 400 or 413 (413 exactly when it is
// over the limit) and a message naming no field the type lacks, never a
// 5xx; an accepted body is a JSON object, and what it decoded to, encoded
// again, decodes to the same value.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"content":"Прайс: ЛДСП 3400 руб","client_id":"c-1"}`,
		`{"title":"t","project":"p","system_prompt":"Be brief."}`,
		`{"content":12}`, `["content"]`, `null`, ``, `{`, `{"level":1e400}`,
		"{\"content\":\"a\xff\"}", `{"thumb":"up","comment":"\u0000\ud800"}`,
	} {
		f.Add([]byte(s))
	}
	h := web.DecodeHandler(fuzzBodyLimit)
	// An encoded value may be longer than its body (defaults, escapes).
	unlimited := web.DecodeHandler(1 << 30)
	bodies := web.RequestBodies()
	names := slices.Sorted(maps.Keys(bodies))
	fields := map[string][]string{}
	for name, v := range bodies {
		fields[name] = jsonNames(reflect.TypeOf(v).Elem())
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, name := range names {
			code, out := postBody(h, name, body)
			switch code {
			case http.StatusOK:
				if len(body) > fuzzBodyLimit || !utf8.Valid(body) || !json.Valid(body) || !isObject(body) {
					t.Fatalf("%s: accepted %q", name, body)
				}
				code2, out2 := postBody(unlimited, name, out)
				if code2 != http.StatusOK || !bytes.Equal(out, out2) {
					t.Fatalf("%s: %q decoded to %s, which decodes to %d %s", name, body, out, code2, out2)
				}
			case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
				if (code == http.StatusRequestEntityTooLarge) != (len(body) > fuzzBodyLimit) {
					t.Fatalf("%s: %d for a body of %d bytes (limit %d)", name, code, len(body), fuzzBodyLimit)
				}
				var e struct{ Error string }
				if err := json.Unmarshal(out, &e); err != nil || strings.TrimSpace(e.Error) == "" {
					t.Fatalf("%s: %q refused with %d %q", name, body, code, out)
				}
				if m := namedField.FindStringSubmatch(e.Error); m != nil && !slices.Contains(fields[name], m[1]) {
					t.Fatalf("%s: %q refused naming a field it does not have: %q", name, body, e.Error)
				}
			default:
				t.Fatalf("%s: %q answered %d %s", name, body, code, out)
			}
		}
	})
}

// postBody posts body to the decode handler's name.
func postBody(h http.Handler, name string, body []byte) (int, []byte) {
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, "/"+name, bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(w, r)
	return w.Code, w.Body.Bytes()
}

// isObject reports whether a JSON text is an object.
func isObject(body []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("{"))
}

// jsonNames lists the JSON names of a struct's fields.
func jsonNames(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		out = append(out, name)
	}
	return out
}
