package a2aerr

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Classify returns the class of err (Other for nil). It reads the
// sentinels err wraps (errors.Is), the facts it carries through its
// RPCCode, HTTPStatus, GRPCCode and CardFetch methods, the network and TLS
// errors below it, and the SDK's words for failures it has no type for.
//
// An error with an RPCCode method may build its own text from its class
// (a2aclient.Error does, through Describe): Classify reads the text of the
// error it wraps instead, and an error with RPCCode that wraps nothing is
// Other.
func Classify(err error) Class {
	if err == nil {
		return Other
	}
	msg, ok := text(err)
	if !ok {
		return Other
	}
	code, status, g := Code(err), Status(err), grpcCode(err)
	switch {
	case errors.Is(err, ErrReadOnly):
		return ReadOnly
	case status == 404 && cardFetch(err):
		return CardNotFound
	case errors.Is(err, ErrNotACard):
		return NotACard
	case errors.Is(err, ErrTooLarge):
		return TooLarge
	case errors.Is(err, ErrStalled):
		return Stalled
	case errors.Is(err, ErrCredential):
		return Unauthenticated
	case isTLS(err, msg):
		return TLS
	case status == 401 || code == -31401 || g == grpcUnauthenticated:
		return Unauthenticated
	case status == 403 || code == -31403 || g == grpcPermissionDenied:
		return Forbidden
	case errors.Is(err, context.Canceled):
		return Canceled
	case errors.Is(err, context.DeadlineExceeded) || g == grpcDeadlineExceeded || isTimeout(err):
		return Timeout
	case notDelivered(err):
		return Unreachable
	case connectionBroke(err, msg) || g == grpcUnavailable:
		return NoAnswer
	case code == -32009 || strings.Contains(msg, "no compatible transports"):
		return Version
	case errors.Is(err, io.ErrUnexpectedEOF) && strings.Contains(msg, "SSE stream error"):
		// The stream's connection ended inside an event: an agent that
		// restarted or crashed, not one that speaks bad A2A (a truncated
		// unary body stays a protocol error).
		return Cut
	}
	return answerClass(err, code, status, msg)
}

// answerClass sorts what the agent answered.
func answerClass(err error, code, status int, msg string) Class {
	switch {
	case code == -32001:
		return TaskNotFound
	case code == -32002:
		return NotCancelable
	case code == -32602 && strings.Contains(msg, "terminal state"):
		// The Go SDK server (v2.4.0) refuses a message on an ended task
		// with invalid params: "task in a terminal state ...".
		return TaskEnded
	case code == -32603 && strings.Contains(msg, "already in progress"):
		// The Go SDK server (v2.4.0) refuses a message while the task's
		// execution runs, as AUTH_REQUIRED executions do until their
		// out-of-band grant: "task execution is already in progress".
		return InProgress
	case code == -32004:
		return Unsupported
	case code == -32602 || code == -32600:
		return Invalid
	case isProtocol(err, status, msg):
		return Protocol
	case code != 0 || status != 0:
		return Refused
	}
	return Other
}

// text returns the text Classify reads in err (see Classify), and false
// for an error with RPCCode that wraps nothing.
func text(err error) (string, bool) {
	var c rpcCoder
	if !errors.As(err, &c) {
		return err.Error(), true
	}
	u, ok := c.(interface{ Unwrap() error })
	if !ok {
		return err.Error(), true
	}
	inner := u.Unwrap()
	if inner == nil {
		return "", false
	}
	return inner.Error(), true
}

// isTLS reports a failed TLS handshake, or an https URL answered in
// plain http (net/http says so only in words).
func isTLS(err error, msg string) bool {
	if strings.Contains(msg, "server gave HTTP response to HTTPS client") || strings.Contains(msg, "remote error: tls:") {
		return true // the second: the peer's alert, such as "certificate required"
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

// notDelivered reports a request that certainly never reached the agent:
// the connection was refused, the host does not resolve, the dial failed.
func notDelivered(err error) bool {
	var op *net.OpError
	var dns *net.DNSError
	return errors.Is(err, syscall.ECONNREFUSED) || errors.As(err, &dns) ||
		errors.As(err, &op) && op.Op == "dial"
}

// connectionBroke reports a connection that failed after it was made:
// reset, or closed while the request was being sent.
func connectionBroke(err error, msg string) bool {
	var op *net.OpError
	return errors.As(err, &op) || errors.Is(err, syscall.ECONNRESET) ||
		(errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)) && strings.Contains(msg, "send HTTP request")
}

// isProtocol reports an answer that is not valid A2A: bad JSON, an SDK
// decoding failure, an HTTP status other than 200.
func isProtocol(err error, status int, msg string) bool {
	var se *json.SyntaxError
	if errors.As(err, &se) || errors.Is(err, a2a.ErrParseError) || errors.Is(err, a2a.ErrInvalidAgentResponse) {
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
