package a2aerr

import "errors"

// ErrReadOnly is the refusal to send to an agent configured read-only, or
// from a session opened read-only: nothing was sent. Other refusals of the
// same class, in their own words, are made with NewReadOnly.
var ErrReadOnly = errors.New("agent is read-only")

// NewReadOnly returns a read-only refusal that reads msg. It wraps
// ErrReadOnly, so errors.Is(err, ErrReadOnly) holds and Classify reads it
// as ReadOnly.
func NewReadOnly(msg string) error { return &readOnly{msg} }

type readOnly struct{ msg string }

func (e *readOnly) Error() string { return e.msg }
func (e *readOnly) Unwrap() error { return ErrReadOnly }

// ErrTooLarge is wrapped by the errors of responses, or SSE events, larger
// than the agent's size limit.
var ErrTooLarge = errors.New("response too large")

// ErrStalled is wrapped by stream errors when the agent began an SSE event
// and sent no more of it within the call timeout.
var ErrStalled = errors.New("the agent stalled mid-event")

// ErrNotACard is wrapped by the error of a card fetch that answered 200
// with something that is not an agent card: a JSON document with no name
// and no interfaces (a JSON-RPC endpoint mounted on "/" answers any path
// so), or no JSON at all.
var ErrNotACard = errors.New("not an agent card")

// ErrCredential is wrapped by the errors of a call that a2atop did not
// send because it could not get the agent's credential: a token endpoint
// that refused, a revoked refresh token, a sign-in that is still needed,
// a credential command that failed. Classify reads it as
// Unauthenticated; nothing reached the agent.
var ErrCredential = errors.New("no credential for the agent")
