package a2aclient

import (
	"net/http"

	"a2atop/a2aclient/edge"
)

// layer is one concern of the HTTP edge: it wraps the RoundTripper below
// it (nearer the wire).
type layer func(next http.RoundTripper) http.RoundTripper

// newTransport returns the http.RoundTripper under the SDK's JSON-RPC and
// REST clients for the agent of c (the card resolver uses it too): a
// chain of small RoundTrippers, one concern each (most in package edge,
// the credential's in package credential), listed here from the SDK down
// to the wire.
//
// The order is what makes each of them right:
//   - the layers that change a request (idSegmentBodies,
//     statusTimestampAfter and the 0.3 referenceTaskIds rewrite) or send
//     one more (subscribeGET) are above the credential layer and the
//     origin guard, so that each request, and each redirect net/http
//     follows, is judged by the URL it is sent to as it leaves, and the
//     capture and the byte count below them see it as it was sent;
//   - the capture is below every layer that changes a response
//     (restErrorBodies re-presents error bodies, restCreated a 201's
//     status, rest03Refs reads bodies
//     for what the SDK drops), so it keeps the bytes as the agent sent
//     them, and above limits, so it records the limit a body broke;
//   - limits wraps each body as it comes off the wire: every layer above
//     that reads bodies (the capture, the probe, restErrorBodies' read of
//     an error body, rest03Refs) reads at most MaxMessageBytes, and none
//     waits on an SSE event the agent stopped sending half-way;
//   - the probe is below subscribeGET, so it hears every attempt of a call
//     and the last one is what the call reports; the retry of a read
//     refused 401 is below the probe (the call reports the retry's answer)
//     and above the credential layer (the retry carries a fresh credential);
//   - wireCount is last: it counts each attempt as it went on the wire.
//
// A new concern of the edge (a credential that refreshes itself, a memory
// bound) is one more layer in this list, in a file of its own in package
// edge (or credential).
func newTransport(c *conn, base http.RoundTripper) http.RoundTripper {
	layers := []layer{
		edge.IDSegmentBodiesLayer,      // REST: the real ids in a body where the SDK put their path form
		edge.StatusTimestampAfterLayer, // REST ListTasks: the parameter the SDK does not send
		edge.REST03RefsLayer,           // A2A 0.3 HTTP+JSON: referenceTaskIds the SDK drops
		edge.RESTErrorBodiesLayer,      // REST errors in media types and shapes the SDK cannot read
		c.streamRecycleLayer,           // SSE: past 8 MiB of big events an agent's stream ends, whose buffers the SDK keeps
		edge.RESTCreatedLayer,          // REST push config created 201: the 200 the SDK expects
		edge.SubscribeGETLayer,         // REST :subscribe answered 405 to POST: once more as GET
		edge.ProbeLayer,                // the call learns the HTTP status and the JSON-RPC code
		c.retry.Layer,                  // an idempotent read refused 401: once more, with a fresh credential
		c.credentialLayer,              // the agent's secret headers, on allowed origins only
		c.originGuardLayer,             // no secret header leaves for another origin
		c.noDowngradeLayer,             // nothing in plain http to an agent configured https
		c.captureLayer,                 // the raw view
		sweepBytesLayer,                // MaxSweepBytes: the bytes of one sweep, all its pages
		c.limitsLayer,                  // MaxMessageBytes, stalled SSE events
		c.wireCountLayer,               // bytes on the wire
	}
	rt := base
	for i := len(layers) - 1; i >= 0; i-- {
		rt = layers[i](rt)
	}
	return rt
}

// The layers of the edge (package edge) that take the agent's own
// state: its account of big streams, origin rule, capture ring and
// redactor, limits and byte count.

func (c *conn) streamRecycleLayer(next http.RoundTripper) http.RoundTripper {
	return edge.StreamRecycle(next, &c.bigStreams)
}

func (c *conn) originGuardLayer(next http.RoundTripper) http.RoundTripper {
	return edge.OriginGuard(next, c.allowed, c.secretNames)
}

func (c *conn) captureLayer(next http.RoundTripper) http.RoundTripper {
	return edge.Capture(next, c.ring, c.red)
}

func (c *conn) limitsLayer(next http.RoundTripper) http.RoundTripper {
	return edge.Limits(next, c.opts.MaxMessageBytes, c.opts.CallTimeout)
}

func (c *conn) wireCountLayer(next http.RoundTripper) http.RoundTripper {
	return edge.WireCount(next, &c.wire)
}
