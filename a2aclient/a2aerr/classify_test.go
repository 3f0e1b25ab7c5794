package a2aerr

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// wireErr carries the wire's facts as a2aclient.Error does, with a text
// of its own that Classify must not read.
type wireErr struct {
	err          error
	code, status int
	grpc         uint32
	card         bool
}

func (e *wireErr) Error() string             { return "presentation text: decode SSE terminal state" }
func (e *wireErr) Unwrap() error             { return e.err }
func (e *wireErr) RPCCode() int              { return e.code }
func (e *wireErr) HTTPStatus() int           { return e.status }
func (e *wireErr) GRPCCode() uint32          { return e.grpc }
func (e *wireErr) CardFetch() bool           { return e.card }
func wire(err error, code, status int) error { return &wireErr{err: err, code: code, status: status} }

// The classes, one error of each kind the edge meets, through the facts
// an error can carry.
func TestClassify(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	for _, tc := range []struct {
		name string
		err  error
		want Class
	}{
		{"nil", nil, Other},
		{"wrapper of nothing", &wireErr{code: -32001}, Other},
		{"read-only", fmt.Errorf("agent x: %w", ErrReadOnly), ReadOnly},
		{"read-only in other words", NewReadOnly("read-only mode"), ReadOnly},
		{"card 404", &wireErr{err: errors.New("card request failed, status: 404"), status: 404, card: true}, CardNotFound},
		{"call 404 is no card", wire(errors.New("not found"), 0, 404), Protocol},
		{"not a card", fmt.Errorf("%w: JSON with no name", ErrNotACard), NotACard},
		{"too large", wire(fmt.Errorf("failed to decode response: %w", ErrTooLarge), 0, 200), TooLarge},
		{"stalled", fmt.Errorf("%w: mid-event", ErrStalled), Stalled},
		{"tls", fmt.Errorf("x: %w", x509.UnknownAuthorityError{}), TLS},
		{"https on http", errors.New("http: server gave HTTP response to HTTPS client"), TLS},
		{"401", wire(errors.New("unexpected HTTP status: 401 Unauthorized"), 0, 401), Unauthenticated},
		{"-31401", wire(a2a.ErrUnauthenticated, -31401, 200), Unauthenticated},
		{"grpc unauthenticated", &wireErr{err: errors.New("rpc error"), grpc: grpcUnauthenticated}, Unauthenticated},
		{"403", wire(errors.New("unexpected HTTP status: 403 Forbidden"), 0, 403), Forbidden},
		{"sentinel only", a2a.ErrUnauthorized, Forbidden},
		{"canceled", fmt.Errorf("x: %w", context.Canceled), Canceled},
		{"deadline", fmt.Errorf("x: %w", context.DeadlineExceeded), Timeout},
		{"deadline after the headers", wire(fmt.Errorf("failed to decode response: %w", context.DeadlineExceeded), 0, 200), Timeout},
		{"refused", fmt.Errorf("failed to send HTTP request: %w", refused), Unreachable},
		{"no such host", &net.DNSError{Err: "no such host", Name: "nowhere.invalid"}, Unreachable},
		{"reset", reset, NoAnswer},
		{"closed while sending", fmt.Errorf("failed to send HTTP request: %w", io.EOF), NoAnswer},
		{"grpc unavailable", &wireErr{err: a2a.ErrInternalError, grpc: grpcUnavailable}, NoAnswer},
		{"version", wire(a2a.ErrVersionNotSupported, -32009, 200), Version},
		{"no common transport", errors.New("no compatible transports: the card offers [GRPC 0.3]"), Version},
		{"cut mid-event", fmt.Errorf("SSE stream error: %w", io.ErrUnexpectedEOF), Cut},
		{"truncated unary", fmt.Errorf("failed to decode response: %w", io.ErrUnexpectedEOF), Protocol},
		{"task not found", wire(a2a.ErrTaskNotFound, -32001, 200), TaskNotFound},
		{"REST task not found", wire(a2a.ErrTaskNotFound, 0, 404), TaskNotFound},
		{"not cancelable", a2a.ErrTaskNotCancelable, NotCancelable},
		{"ended (Go server)", wire(a2a.NewError(a2a.ErrInvalidParams, `task in a terminal state "TASK_STATE_CANCELED": invalid params`), -32602, 200), TaskEnded},
		{"in progress", wire(a2a.NewError(a2a.ErrInternalError, "task execution is already in progress"), -32603, 200), InProgress},
		{"unsupported", wire(a2a.ErrUnsupportedOperation, -32004, 200), Unsupported},
		{"invalid params", wire(a2a.ErrInvalidParams, -32602, 200), Invalid},
		{"invalid request", a2a.ErrInvalidRequest, Invalid},
		{"bad JSON", &json.SyntaxError{}, Protocol},
		{"REST 500", wire(a2a.ErrInternalError, 0, 500), Protocol},
		{"unknown code", wire(a2a.ErrInternalError, -32050, 200), Refused},
		{"grpc internal", &wireErr{err: a2a.ErrInternalError}, Refused},
		{"plain", errors.New("something else"), Other},
	} {
		if got := Classify(tc.err); got != tc.want {
			t.Errorf("%s: Classify(%v) = %s, want %s", tc.name, tc.err, got, tc.want)
		}
	}
}

// The facts approvals reads: the code (from the wire, else the
// sentinel's), the status, and whether the agent answered at all.
func TestFacts(t *testing.T) {
	for _, tc := range []struct {
		err            error
		code, status   int
		answered, isRO bool
	}{
		{wire(a2a.ErrInternalError, -32050, 200), -32050, 200, true, false},
		{wire(a2a.ErrTaskNotFound, 0, 404), -32001, 404, true, false},
		{a2a.ErrTaskNotCancelable, -32002, 0, true, false},
		{fmt.Errorf("x: %w", context.DeadlineExceeded), 0, 0, false, false},
		{NewReadOnly("no"), 0, 0, false, true},
	} {
		if Code(tc.err) != tc.code || Status(tc.err) != tc.status || Answered(tc.err) != tc.answered ||
			errors.Is(tc.err, ErrReadOnly) != tc.isRO {
			t.Errorf("%v: code %d status %d answered %v read-only %v; want %d %d %v %v", tc.err,
				Code(tc.err), Status(tc.err), Answered(tc.err), errors.Is(tc.err, ErrReadOnly),
				tc.code, tc.status, tc.answered, tc.isRO)
		}
	}
	if len(Sentinels()) != len(sentinelCodes) || SentinelCode(errors.New("x")) != 0 {
		t.Error("Sentinels and SentinelCode disagree with the table")
	}
}

func TestClassString(t *testing.T) {
	if TaskNotFound.String() != "task-not-found" || Refused.String() != "refused" || Class(200).String() != "class(200)" {
		t.Errorf("names: %s %s %s", TaskNotFound, Refused, Class(200))
	}
	for c := Other; c <= Refused; c++ {
		if c.String() == "" {
			t.Errorf("class %d has no name", c)
		}
	}
}
