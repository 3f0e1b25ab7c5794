package a2aerr

import "strconv"

// Class is the class of a failure. The zero value, Other, is an error
// Classify has no class for (and nil).
type Class uint8

// The classes, in the order Classify tries them: an error that fits two
// gets the first.
const (
	Other Class = iota
	// ReadOnly: a2atop refused to send (ErrReadOnly); nothing was sent.
	ReadOnly
	// CardNotFound: the agent card's URL answered 404.
	CardNotFound
	// NotACard: the card's URL answered something that is not a card.
	NotACard
	// TooLarge: a response or an SSE event passed the size limit.
	TooLarge
	// Stalled: the agent began an SSE event and did not finish it.
	Stalled
	// TLS: the TLS handshake failed, or an https URL answered plain http.
	TLS
	// Unauthenticated: 401, -31401, gRPC UNAUTHENTICATED.
	Unauthenticated
	// Forbidden: 403, -31403, gRPC PERMISSION_DENIED.
	Forbidden
	// Canceled: our own context was canceled.
	Canceled
	// Timeout: no answer in time; whether the agent got the request is
	// unknown.
	Timeout
	// Unreachable: nothing reached the agent (connection refused, no such
	// host, a failed dial).
	Unreachable
	// NoAnswer: the connection broke before an answer (reset, closed
	// while sending, gRPC UNAVAILABLE); whether the agent got the request
	// is unknown.
	NoAnswer
	// Version: no protocol version or binding in common (-32009).
	Version
	// Cut: a stream's connection ended inside an SSE event (an agent that
	// restarted or crashed).
	Cut
	// TaskNotFound: the agent does not know the task (-32001).
	TaskNotFound
	// NotCancelable: the task has ended and cannot be canceled (-32002).
	NotCancelable
	// TaskEnded: the task is in a terminal state and takes no message
	// (the Go SDK server answers so with -32602).
	TaskEnded
	// InProgress: the agent refuses messages while the task's execution
	// runs (-32603 "already in progress", from Go SDK servers): on an
	// AUTH_REQUIRED task, the agent takes its authorization out of band.
	InProgress
	// Unsupported: the agent does not support the operation (-32004), as
	// on a task that has ended.
	Unsupported
	// Invalid: the agent rejected the request as invalid (-32602, -32600).
	Invalid
	// Protocol: the agent's answer is not valid A2A.
	Protocol
	// Refused: the agent answered with another error code or HTTP status.
	Refused
)

var classNames = [...]string{
	Other: "other", ReadOnly: "read-only", CardNotFound: "card-not-found", NotACard: "not-a-card",
	TooLarge: "too-large", Stalled: "stalled", TLS: "tls", Unauthenticated: "unauthenticated",
	Forbidden: "forbidden", Canceled: "canceled", Timeout: "timeout", Unreachable: "unreachable",
	NoAnswer: "no-answer", Version: "version", Cut: "cut", TaskNotFound: "task-not-found",
	NotCancelable: "not-cancelable", TaskEnded: "task-ended", InProgress: "in-progress",
	Unsupported: "unsupported", Invalid: "invalid", Protocol: "protocol", Refused: "refused",
}

// String names the class in words for logs and tests ("task-not-found").
func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "class(" + strconv.Itoa(int(c)) + ")"
}

// Auth reports whether c is Unauthenticated or Forbidden: the agent
// refused our credentials.
func (c Class) Auth() bool { return c == Unauthenticated || c == Forbidden }

// Network reports whether c is a failure to reach the agent or to hear
// from it: Unreachable, NoAnswer, Timeout or TLS.
func (c Class) Network() bool {
	return c == Unreachable || c == NoAnswer || c == Timeout || c == TLS
}
