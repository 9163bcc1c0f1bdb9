package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
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
	if err := json.Unmarshal(body, v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return yakor.Errorf(yakor.EINVALID, "field %q must be a JSON %s", typeErr.Field, typeErr.Type.Kind())
		}
		return yakor.Errorf(yakor.EINVALID, "malformed JSON: %s", jsonErrorText(err))
	}
	return nil
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
