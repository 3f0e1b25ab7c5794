package model

import "time"

// Exchange is one request and its answer as the raw capture recorded it,
// for the agents view. Bodies are redacted (no secrets) and truncated.
type Exchange struct {
	At       time.Time
	Method   string // HTTP method
	URL      string
	RPC      string // JSON-RPC method or REST operation, when known
	Status   int    // HTTP status; 0 if no response
	RPCCode  int    // JSON-RPC error code, 0 if none
	Request  string // redacted, truncated body
	Response string // redacted, truncated body, or the SSE frames read so far
	Err      string // transport error, if any
	Duration time.Duration
}
