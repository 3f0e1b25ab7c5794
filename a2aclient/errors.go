package a2aclient

import (
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"

	"a2atop/a2aclient/a2aerr"
	"a2atop/a2aclient/credential"
	"a2atop/a2aclient/edge"
)

// Error is the error Get, Reply, Cancel and the watchers report. It wraps
// what the SDK returned, so errors.Is works on the a2a sentinels
// (a2a.ErrTaskNotFound, ...) and on context.DeadlineExceeded, and it adds
// what the SDK hides (edge/hidden_codes.go): the real JSON-RPC code, the HTTP
// status and the gRPC code seen on the wire. a2aerr.Classify reads them;
// callers that must not import this package use a2aerr too.
type Error struct {
	Agent  string // configured agent name
	Op     string // "GetTask", "SendMessage", "CancelTask", "ListTasks", "SubscribeToTask", "card", "connect"
	URL    string // the URL the call went to
	Code   int    // JSON-RPC error code from the wire, 0 if none
	Status int    // HTTP status from the wire, 0 if none (gRPC, or no response)
	GRPC   codes.Code
	Err    error

	red *edge.Redactor // the agent's secrets, kept out of Error and Describe
	// withheld is the origin of the interface our secrets were kept from
	// (another origin, not in AllowedHosts); zero when they were sent.
	withheld credential.Origin
	// downgrade: the configured URL is https and withheld is not.
	downgrade bool
	// certAsked is what the agent's TLS server asked of our client
	// certificate (credential.Certificate.Asked).
	certAsked int32
	// certNote says why the certificate presented is not the one in its
	// files (credential.Certificate.Note); "" when it is.
	certNote string
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
	return a2aerr.SentinelCode(e.Err)
}

// GRPCCode is the gRPC status code of the failed call, 0 (OK) if none.
func (e *Error) GRPCCode() uint32 { return uint32(e.GRPC) }

// CardFetch reports whether the failed exchange fetched the agent card.
func (e *Error) CardFetch() bool { return e.Op == "card" }

// The errors a2atop reports at the edge, from the shared vocabulary.
var (
	// ErrTooLarge is wrapped by errors for responses or SSE events larger
	// than MaxMessageBytes.
	ErrTooLarge = a2aerr.ErrTooLarge
	// ErrStalled is wrapped by stream errors when the agent began an SSE
	// event and sent no more of it for CallTimeout.
	ErrStalled = a2aerr.ErrStalled
	// ErrNotACard is wrapped by the error of a card fetch that answered 200
	// with something that is not an agent card.
	ErrNotACard = a2aerr.ErrNotACard
	// ErrReadOnly is returned by Reply and Cancel on an agent configured
	// read-only.
	ErrReadOnly = a2aerr.ErrReadOnly
)

// ErrUnknownAgent is returned for an agent name that is not configured.
var ErrUnknownAgent = errors.New("unknown agent")
