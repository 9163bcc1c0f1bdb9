package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"yakor"
)

// decode reads the request body as JSON into v. It refuses an empty body, a
// body over the size limit, bytes that are not UTF-8 (which encoding/json
// would silently replace) and malformed JSON, each with a message a client
// can act on.
func (s *Server) decode(c *gin.Context, v any) error {
	body, err := s.body(c)
	if err != nil {
		return err
	}
	return decodeJSON(body, v)
}

// decodeJSON decodes a JSON object into v, a pointer to a request struct.
// It refuses malformed JSON and any other JSON value than an object (null
// too), and names the field whose value has the wrong type.
func decodeJSON(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return yakor.Errorf(yakor.EINVALID, "field %q must be %s", typeErr.Field, jsonKind(typeErr.Type))
		}
		if typeErr != nil {
			return yakor.Errorf(yakor.EINVALID, "the request body must be a JSON object, not %s", typeErr.Value)
		}
		return yakor.Errorf(yakor.EINVALID, "malformed JSON: %s", jsonErrorText(err))
	}
	if string(bytes.TrimSpace(body)) == "null" {
		return yakor.Errorf(yakor.EINVALID, "the request body must be a JSON object, not null")
	}
	return nil
}

// jsonKind says what JSON value a Go type takes, for an error message.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "a whole number in range"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return "an object"
}

// body reads the request body, refusing an empty one, one over the size
// limit and bytes that are not UTF-8.
func (s *Server) body(c *gin.Context) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, s.maxBodyBytes))
	if err != nil {
		var maxErr *http.MaxBytesError
		if errors.As(err, &maxErr) {
			return nil, yakor.Errorf(yakor.ETOOLARGE, "request body is larger than %d bytes", s.maxBodyBytes)
		}
		return nil, yakor.Errorf(yakor.EINVALID, "cannot read request body: %v", err)
	}
	if len(body) == 0 {
		return nil, yakor.Errorf(yakor.EINVALID, "request body is empty; send a JSON object")
	}
	if !utf8.Valid(body) {
		return nil, yakor.Errorf(yakor.EINVALID, "request body is not valid UTF-8")
	}
	return body, nil
}

func jsonErrorText(err error) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Sprintf("%v (at byte %d)", syn, syn.Offset)
	}
	return err.Error()
}
