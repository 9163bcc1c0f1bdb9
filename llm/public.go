package llm

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// Public is the error as a client of Yakor may read it: the model, the
// status and what went wrong, without the model server's address (a
// private network's host and port are the operator's, and go to the log
// with Error).
func (e *Error) Public() string {
	var b strings.Builder
	fmt.Fprintf(&b, "model %q: ", e.Model)
	if e.Status != 0 {
		fmt.Fprintf(&b, "status %d: ", e.Status)
	}
	b.WriteString(publicCause(e.Err, e.Server))
	return b.String()
}

// publicCause says what err was without an address: a connection failure
// as what the system said of it, a name that did not resolve as that, and
// anything else with the server's URL and host taken out.
func publicCause(err error, server string) string {
	if err == nil {
		return "failed"
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return "could not resolve the model server's name"
	}
	var op *net.OpError
	if errors.As(err, &op) {
		cause := "unreachable"
		if op.Err != nil {
			cause = op.Err.Error()
			if se, ok := op.Err.(interface{ Unwrap() error }); ok && se.Unwrap() != nil {
				cause = se.Unwrap().Error() // "connection refused", not "connect: …"
			}
		}
		return "could not reach the model server: " + cause
	}
	msg := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		msg = ue.Err.Error()
	}
	if server != "" {
		msg = strings.ReplaceAll(msg, server, "the model server")
		if u, perr := url.Parse(server); perr == nil && u.Host != "" {
			msg = strings.ReplaceAll(msg, u.Host, "the model server")
		}
	}
	return msg
}
