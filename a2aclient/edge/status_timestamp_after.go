package edge

import (
	"context"
	"net/http"
	"strings"
	"time"
)

// statusTimestampAfter gives REST ListTasks the statusTimestampAfter
// parameter. The SDK's v1.0 REST client (github.com/a2aproject/a2a-go/v2
// v2.4.0, a2aclient/rest.go ListTasks) sends the request's
// StatusTimestampAfter as "lastUpdatedAfter", the A2A 0.3 name, in whole
// seconds, while v1.0 REST servers, the SDK's own among them, read
// "statusTimestampAfter" (a2a-go#425, open, renames it): every
// incremental sweep over REST would be a full listing. This layer adds
// statusTimestampAfter to such a request with the exact mark the sweep
// put in the context (withSweepAfter), RFC 3339 with nanoseconds, and
// leaves lastUpdatedAfter for the 0.3 servers that read it.
// TestSDKSendsLastUpdatedAfter (status_timestamp_after_test.go, beside
// this file, the bare SDK against a real SDK server, then the same
// client over this layer) pins the SDK's side: the day it fails, the
// SDK sends the parameter itself and this file and its test go, with
// TestRESTSweepsAreIncremental
// (a2aclient/status_timestamp_after_test.go), which checks the fix
// through a2aclient's sweeps.
type statusTimestampAfter struct{ next http.RoundTripper }

// StatusTimestampAfterLayer is the fix, above next.
func StatusTimestampAfterLayer(next http.RoundTripper) http.RoundTripper {
	return statusTimestampAfter{next}
}

type sweepAfterKey struct{}

// WithSweepAfter returns ctx carrying the exact lower bound of an
// incremental sweep.
func WithSweepAfter(ctx context.Context, after time.Time) context.Context {
	return context.WithValue(ctx, sweepAfterKey{}, after)
}

// RoundTrip implements http.RoundTripper.
func (t statusTimestampAfter) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet || !strings.HasSuffix(req.URL.Path, "/tasks") {
		return t.next.RoundTrip(req)
	}
	q := req.URL.Query()
	v := q.Get("lastUpdatedAfter")
	if v == "" || q.Get("statusTimestampAfter") != "" {
		return t.next.RoundTrip(req)
	}
	if at, ok := req.Context().Value(sweepAfterKey{}).(time.Time); ok {
		v = at.UTC().Format(time.RFC3339Nano)
	}
	q.Set("statusTimestampAfter", v)
	r2 := req.Clone(req.Context())
	r2.URL.RawQuery = q.Encode()
	return t.next.RoundTrip(r2)
}
