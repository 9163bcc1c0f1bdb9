package yakor

import (
	"errors"
	"fmt"
)

// Error codes. The web layer maps each to an HTTP status in one table.
const (
	ECONFLICT     = "conflict"     // the request clashes with the current state
	EINTERNAL     = "internal"     // a bug or an unexpected failure; details are logged, not shown
	EINVALID      = "invalid"      // the input is wrong; the message says how
	ENOTFOUND     = "not_found"    // the thing named does not exist in the caller's scope
	ETOOLARGE     = "too_large"    // the input is over a configured limit
	EMODEL        = "model"        // the model server failed or refused
	ETIMEOUT      = "timeout"      // the model server did not answer in time
	EUNAVAILABLE  = "unavailable"  // a dependency (the database) is down; retrying later may work
	EUNAUTHORIZED = "unauthorized" // no valid credentials
	EFORBIDDEN    = "forbidden"    // valid credentials that may not do this
	ETOOMANY      = "too_many"     // over a rate or concurrency limit; retry later
	EMEDIATYPE    = "media_type"   // the body is not in a type the endpoint takes
)

// Error is an error with a code and a message meant for the user of the API.
// Wrap it with fmt.Errorf("op: %w", err) freely: ErrorCode and ErrorMessage
// find it anywhere in the chain.
type Error struct {
	Code    string
	Message string
}

// Error implements the error interface.
func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with the code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL for
// any other non-nil error and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the message of the first *Error in err's chain, or
// "internal error" for any other error, so that internals never reach a client.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}
