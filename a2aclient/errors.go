package a2aclient

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"google.golang.org/grpc/codes"
)

// Error is the error Get, Reply, Cancel and the watchers report. It wraps
// what the SDK returned, so errors.Is works on the a2a sentinels
// (a2a.ErrTaskNotFound, ...) and on context.DeadlineExceeded, and it adds
// what the SDK hides: the real JSON-RPC code and HTTP status seen on the
// wire. Callers that must not import this package classify with a local
// interface{ RPCCode() int }.
type Error struct {
	Agent  string // configured agent name
	Op     string // "GetTask", "SendMessage", "CancelTask", "ListTasks", "SubscribeToTask", "card", "connect"
	URL    string // the URL the call went to
	Code   int    // JSON-RPC error code from the wire, 0 if none
	Status int    // HTTP status from the wire, 0 if none (gRPC, or no response)
	GRPC   codes.Code
	Err    error

	red *redactor // the agent's secrets, kept out of Error and Describe
	// withheld is the host:port of the interface our secrets were kept
	// from (another origin, not in AllowedHosts); "" when they were sent.
	withheld string
}

// Error reads "agent "x": GetTask: <what happened>".
func (e *Error) Error() string {
	return fmt.Sprintf("agent %q: %s: %s", e.Agent, e.Op, Describe(e))
}

// Unwrap returns the SDK error.
func (e *Error) Unwrap() error { return e.Err }

// HTTPStatus is the HTTP status of the failed exchange, 0 if there was none.
func (e *Error) HTTPStatus() int { return e.Status }

// RPCCode is the JSON-RPC error code: the one on the wire when there was
// one, otherwise the A2A code of the sentinel the error wraps (for REST and
// gRPC), otherwise 0.
func (e *Error) RPCCode() int {
	if e.Code != 0 {
		return e.Code
	}
	for _, c := range sentinelCodes {
		if errors.Is(e.Err, c.err) {
			return c.code
		}
	}
	return 0
}

var sentinelCodes = []struct {
	err  error
	code int
}{
	{a2a.ErrTaskNotFound, -32001}, {a2a.ErrTaskNotCancelable, -32002},
	{a2a.ErrPushNotificationNotSupported, -32003}, {a2a.ErrUnsupportedOperation, -32004},
	{a2a.ErrUnsupportedContentType, -32005}, {a2a.ErrInvalidAgentResponse, -32006},
	{a2a.ErrExtendedCardNotConfigured, -32007}, {a2a.ErrExtensionSupportRequired, -32008},
	{a2a.ErrVersionNotSupported, -32009}, {a2a.ErrUnauthenticated, -31401},
	{a2a.ErrUnauthorized, -31403}, {a2a.ErrParseError, -32700},
	{a2a.ErrInvalidRequest, -32600}, {a2a.ErrMethodNotFound, -32601},
	{a2a.ErrInvalidParams, -32602}, {a2a.ErrInternalError, -32603},
	{a2a.ErrServerError, -32000},
}

// ErrTooLarge is wrapped by errors for responses or SSE events larger than
// MaxMessageBytes.
var ErrTooLarge = errors.New("response too large")

// ErrStalled is wrapped by stream errors when the agent began an SSE event
// and sent no more of it for CallTimeout.
var ErrStalled = errors.New("the agent stalled mid-event")

// ErrNotACard is wrapped by the error of a card fetch that answered 200
// with something that is not an agent card: a JSON document with no name
// and no interfaces (a JSON-RPC endpoint mounted on "/" answers any path
// so), or no JSON at all.
var ErrNotACard = errors.New("not an agent card")

// ErrReadOnly is returned by Reply and Cancel on an agent configured read-only.
var ErrReadOnly = errors.New("agent is read-only")

// ErrUnknownAgent is returned for an agent name that is not configured.
var ErrUnknownAgent = errors.New("unknown agent")

// kind is the class of a failure, which decides the agent's health.
type kind uint8

const (
	kindOther kind = iota
	kindUnreachable
	kindTimeout
	kindTLS
	kindUnauthenticated
	kindForbidden
	kindCardNotFound
	kindNotACard
	kindVersion
	kindProtocol
	kindTooLarge
	kindStalled
	kindCanceled
	kindCut
)

// classify sorts an error into a kind.
func classify(err error) kind {
	if err == nil {
		return kindOther
	}
	var e *Error
	status, code, g := 0, 0, codes.OK
	msg := err.Error
	if errors.As(err, &e) {
		status, code, g = e.Status, e.Code, e.GRPC
		if e.Err == nil {
			return kindOther
		}
		msg = e.Err.Error // never e.Error: it calls Describe, which calls classify
	}
	var nse *agentcard.ErrStatusNotOK
	if errors.As(err, &nse) {
		status = nse.StatusCode
		if e == nil || e.Op == "card" {
			switch {
			case status == 401:
				return kindUnauthenticated
			case status == 403:
				return kindForbidden
			case status == 404:
				return kindCardNotFound
			}
		}
	}
	switch {
	case errors.Is(err, ErrNotACard):
		return kindNotACard
	case errors.Is(err, ErrTooLarge):
		return kindTooLarge
	case errors.Is(err, ErrStalled):
		return kindStalled
	case isTLS(err, msg()):
		return kindTLS
	case status == 401 || code == -31401 || g == codes.Unauthenticated || errors.Is(err, a2a.ErrUnauthenticated):
		return kindUnauthenticated
	case status == 403 || code == -31403 || g == codes.PermissionDenied || errors.Is(err, a2a.ErrUnauthorized):
		return kindForbidden
	case errors.Is(err, context.Canceled):
		return kindCanceled
	case errors.Is(err, context.DeadlineExceeded) || g == codes.DeadlineExceeded || isTimeout(err):
		return kindTimeout
	case isUnreachable(err, msg()) || g == codes.Unavailable:
		return kindUnreachable
	case errors.Is(err, a2a.ErrVersionNotSupported) || code == -32009 ||
		strings.Contains(msg(), "no compatible transports"):
		return kindVersion
	case errors.Is(err, io.ErrUnexpectedEOF) && strings.Contains(msg(), "SSE stream error"):
		// The stream's connection ended inside an event: an agent that
		// restarted or crashed, not one that speaks bad A2A (a truncated
		// unary body stays a protocol error).
		return kindCut
	case isProtocol(err, status, msg()):
		return kindProtocol
	}
	return kindOther
}

// isTLS reports a failed TLS handshake, or an https URL answered in
// plain http (net/http says so only in words).
func isTLS(err error, msg string) bool {
	if strings.Contains(msg, "server gave HTTP response to HTTPS client") {
		return true
	}
	var cv *tls.CertificateVerificationError
	var rh tls.RecordHeaderError
	var ua x509.UnknownAuthorityError
	var he x509.HostnameError
	var ci x509.CertificateInvalidError
	var al tls.AlertError
	return errors.As(err, &cv) || errors.As(err, &rh) || errors.As(err, &ua) ||
		errors.As(err, &he) || errors.As(err, &ci) || errors.As(err, &al)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func isUnreachable(err error, msg string) bool {
	var op *net.OpError
	var dns *net.DNSError
	if errors.As(err, &op) || errors.As(err, &dns) {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		(errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)) && strings.Contains(msg, "send HTTP request")
}

func isProtocol(err error, status int, msg string) bool {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return true
	}
	if errors.Is(err, a2a.ErrParseError) || errors.Is(err, a2a.ErrInvalidAgentResponse) {
		return true
	}
	if status != 0 && status != 200 {
		return true
	}
	for _, s := range []string{"decode", "unmarshal", "SSE", "violates A2A spec", "invalid character", "unexpected end of JSON"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
