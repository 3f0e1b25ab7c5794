package a2aerr

import (
	"errors"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// The optional methods through which an error tells what the wire said
// beyond its chain. Each is read on the first error of the chain that has
// it; a2aclient.Error has all four.
type (
	// rpcCoder: the JSON-RPC error code (or the A2A code of the sentinel
	// the error wraps), 0 if none.
	rpcCoder interface{ RPCCode() int }
	// httpStatuser: the HTTP status of the failed exchange, 0 if none.
	httpStatuser interface{ HTTPStatus() int }
	// grpcCoder: the gRPC status code of the failed call, 0 if none.
	grpcCoder interface{ GRPCCode() uint32 }
	// cardFetcher: whether the failed exchange fetched the agent card.
	cardFetcher interface{ CardFetch() bool }
)

// The gRPC status codes Classify reads (fixed by the gRPC protocol).
const (
	grpcDeadlineExceeded = 4
	grpcPermissionDenied = 7
	grpcUnavailable      = 14
	grpcUnauthenticated  = 16
)

// sentinelCodes maps the SDK's sentinels to their A2A JSON-RPC codes.
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

// Sentinels returns the SDK's A2A error sentinels (a2a.ErrTaskNotFound,
// ...), the ones SentinelCode knows.
func Sentinels() []error {
	out := make([]error, len(sentinelCodes))
	for i, s := range sentinelCodes {
		out[i] = s.err
	}
	return out
}

// SentinelCode returns the A2A JSON-RPC code of the SDK sentinel err
// wraps, or 0.
func SentinelCode(err error) int {
	for _, s := range sentinelCodes {
		if errors.Is(err, s.err) {
			return s.code
		}
	}
	return 0
}

// Code returns the JSON-RPC code err carries (its RPCCode method), or
// else the code of the sentinel it wraps, or 0.
func Code(err error) int {
	var c rpcCoder
	if errors.As(err, &c) && c.RPCCode() != 0 {
		return c.RPCCode()
	}
	return SentinelCode(err)
}

// Status returns the HTTP status err carries (its HTTPStatus method), or 0.
func Status(err error) int {
	var h httpStatuser
	if errors.As(err, &h) {
		return h.HTTPStatus()
	}
	return 0
}

// Answered reports whether err carries an answer of the agent: a JSON-RPC
// code or an HTTP status.
func Answered(err error) bool { return Code(err) != 0 || Status(err) != 0 }

func grpcCode(err error) uint32 {
	var g grpcCoder
	if errors.As(err, &g) {
		return g.GRPCCode()
	}
	return 0
}

func cardFetch(err error) bool {
	var c cardFetcher
	return errors.As(err, &c) && c.CardFetch()
}
