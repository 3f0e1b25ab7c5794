// Package a2aerr is the vocabulary of failures that a2aclient and
// approvals share: the classes a failure falls in (Class), the errors
// a2atop itself reports at the edge (ErrReadOnly, ErrTooLarge, ErrStalled,
// ErrNotACard, ErrCredential), and Classify, which sorts any error by
// what it carries: an a2a sentinel of the SDK, the JSON-RPC code, HTTP
// status and gRPC code seen on the wire, and the network or TLS error
// below it.
//
// a2aclient builds its errors and its words (Describe, an agent's health)
// on it; approvals decides from it whether a decision reached the agent.
//
// It imports the standard library and the SDK's a2a types only: no
// transport, so approvals can classify without importing a2aclient. It
// imports no a2atop package.
package a2aerr
