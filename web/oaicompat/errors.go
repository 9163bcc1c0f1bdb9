package oaicompat

import (
	"net/http"

	"yakor"
)

// OpenAI's error codes that Yakor sends.
const (
	CodeUnsupportedParameter = "unsupported_parameter" // a field Yakor does not support
	CodeUnsupportedValue     = "unsupported_value"     // a supported field with a value Yakor does not support
	CodeInvalidValue         = "invalid_value"         // a value out of range or of the wrong shape
	CodeMissingParameter     = "missing_required_parameter"
	CodeModelNotFound        = "model_not_found"
)

// RequestError is a request refused for one of its fields. Its *yakor.Error
// (reached with errors.As, or Unwrap) carries the code that picks the HTTP
// status and the message; Param and Code fill OpenAI's error shape.
type RequestError struct {
	Param string // the field at fault, e.g. "tools" or "messages[2].content[0].type"
	Code  string // OpenAI's error code, e.g. "unsupported_parameter"
	Err   *yakor.Error
}

// Error returns the message.
func (e *RequestError) Error() string { return e.Err.Message }

// Unwrap returns the coded error.
func (e *RequestError) Unwrap() error { return e.Err }

func requestError(code, param, yakorCode, format string, args ...any) *RequestError {
	return &RequestError{Param: param, Code: code, Err: yakor.Errorf(yakorCode, format, args...)}
}

func unsupported(param, format string, args ...any) error {
	return requestError(CodeUnsupportedParameter, param, yakor.EINVALID, format, args...)
}

func unsupportedValue(param, format string, args ...any) error {
	return requestError(CodeUnsupportedValue, param, yakor.EINVALID, format, args...)
}

func invalid(param, format string, args ...any) error {
	return requestError(CodeInvalidValue, param, yakor.EINVALID, format, args...)
}

// Invalid refuses a request's value that Yakor finds wrong after parsing
// it, naming the param at fault (400, invalid_value).
func Invalid(param, format string, args ...any) error { return invalid(param, format, args...) }

func missing(param, format string, args ...any) error {
	return requestError(CodeMissingParameter, param, yakor.EINVALID, format, args...)
}

// ModelNotFound refuses a model that GET /v1/models does not list (404).
func ModelNotFound(model string, listed []string) error {
	return requestError(CodeModelNotFound, "model", yakor.ENOTFOUND, "the model %q does not exist here: use one that GET /v1/models lists (%v)", model, listed)
}

// ErrorResponse is OpenAI's error shape: {"error": {…}}.
type ErrorResponse struct {
	Error ErrorBody `json:"error"`
}

// ErrorBody is the error itself; Param and Code are null when unknown.
type ErrorBody struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// NewError is the error shape for a status, a message, and the field and
// code (each "" when none). A status without a code of its own gets
// OpenAI's usual one (401 invalid_api_key, 429 rate_limit_exceeded…).
func NewError(status int, message, param, code string) ErrorResponse {
	typ, def := kind(status)
	if code == "" {
		code = def
	}
	b := ErrorBody{Message: message, Type: typ}
	if param != "" {
		b.Param = &param
	}
	if code != "" {
		b.Code = &code
	}
	return ErrorResponse{Error: b}
}

// kinds are the error type and default code OpenAI gives a status.
var kinds = map[int]struct{ typ, code string }{
	http.StatusUnauthorized:          {"authentication_error", "invalid_api_key"},
	http.StatusForbidden:             {"permission_error", ""},
	http.StatusNotFound:              {"invalid_request_error", "not_found"},
	http.StatusConflict:              {"invalid_request_error", "conflict"},
	http.StatusRequestEntityTooLarge: {"invalid_request_error", "request_too_large"},
	http.StatusTooManyRequests:       {"rate_limit_error", "rate_limit_exceeded"},
	http.StatusGatewayTimeout:        {"server_error", "timeout"},
}

// kind is the error type and default code OpenAI gives a status: from
// kinds, else server_error for a 5xx and invalid_request_error otherwise.
func kind(status int) (typ, code string) {
	if k, ok := kinds[status]; ok {
		return k.typ, k.code
	}
	if status >= 500 {
		return "server_error", ""
	}
	return "invalid_request_error", ""
}

// NotFound refuses a request whose param names something that does not
// exist (404, invalid_value).
func NotFound(param, format string, args ...any) error {
	return requestError(CodeInvalidValue, param, yakor.ENOTFOUND, format, args...)
}
