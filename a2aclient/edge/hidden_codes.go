package edge

import (
	"context"
	"io"
	"net/http"
	"sync"

	"google.golang.org/grpc/codes"
)

// The SDK (github.com/a2aproject/a2a-go/v2 v2.4.0) hides what the wire
// says about a failure: its JSON-RPC client turns every error code it
// does not know into a2a.ErrInternalError and keeps no code
// (internal/jsonrpc FromJSONRPCError), answers an HTTP status other than
// 200 with the untyped "unexpected HTTP status: 401 Unauthorized", and its
// REST client keeps only the A2A reason of an error, not the HTTP status
// (internal/rest FromRESTError). A per-call probe carried by the request
// context is how Error still has them: ProbeLayer records the HTTP
// status, the URL and the JSON-RPC error code of each exchange into it,
// and the gRPC interceptors its status code (grpc_capture.go).
// TestSDKHidesWireCodes (hidden_codes_test.go, beside this file, the
// bare SDK against a real SDK server) pins the SDK's side: the day it
// fails, the SDK says these itself and this file and its test go;
// TestOperations, TestRESTErrorShapes and TestHostilePeer
// (a2aclient/ops_test.go, rest_error_bodies_test.go, hostile_test.go)
// check the codes through a2aclient's wiring.

// Probe collects, for one call, what the SDK does not tell us. The
// RoundTripper and the gRPC interceptors fill it; the caller reads it
// after the SDK call returns. Safe for concurrent use; a nil *Probe
// ignores what it is told.
type Probe struct {
	mu     sync.Mutex
	status int
	code   int
	url    string
	grpc   codes.Code
}

type probeKey struct{}

// WithProbe returns ctx carrying a new probe, and the probe.
func WithProbe(ctx context.Context) (context.Context, *Probe) {
	p := &Probe{}
	return context.WithValue(ctx, probeKey{}, p), p
}

// ProbeFrom is the probe ctx carries, nil when none.
func ProbeFrom(ctx context.Context) *Probe {
	p, _ := ctx.Value(probeKey{}).(*Probe)
	return p
}

// set records what is not zero among status, code and url.
func (p *Probe) set(status, code int, url string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if status != 0 {
		p.status = status
	}
	if code != 0 {
		p.code = code
	}
	if url != "" {
		p.url = url
	}
}

func (p *Probe) setGRPC(c codes.Code) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.grpc = c
}

// Get is what the probe was told.
func (p *Probe) Get() (status, code int, url string, grpc codes.Code) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status, p.code, p.url, p.grpc
}

// probeTransport fills the probe of each call that has one.
type probeTransport struct{ next http.RoundTripper }

// ProbeLayer fills each call's Probe from what next saw.
func ProbeLayer(next http.RoundTripper) http.RoundTripper { return probeTransport{next} }

// RoundTrip implements http.RoundTripper.
func (t probeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	pr := ProbeFrom(req.Context())
	resp, err := t.next.RoundTrip(req)
	if pr == nil {
		return resp, err
	}
	if err != nil {
		pr.set(0, 0, req.URL.String())
		return nil, err
	}
	pr.set(resp.StatusCode, 0, req.URL.String())
	resp.Body = &probedBody{rc: resp.Body, pr: pr, sse: isSSE(resp)}
	return resp, nil
}

// probeBytes bounds what a probed body keeps to find its JSON-RPC error:
// the head of a unary answer, the current and the last SSE event.
const probeBytes = CaptureResponseBytes

// probedBody keeps what it needs of a body to read its JSON-RPC error
// code on close: a unary answer's head, or a stream's last event (a server
// ends a stream with its error).
type probedBody struct {
	rc   io.ReadCloser
	pr   *Probe
	sse  bool
	ev   sseEvents
	cur  []byte // the unary answer, or the SSE event being read
	last []byte // the last complete SSE event
	over bool   // cur passed probeBytes: too large to be an error answer
	once sync.Once
}

func (b *probedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if !b.sse {
		b.keep(p[:n])
		return n, err
	}
	for q := p[:n]; len(q) > 0; {
		event, rest, ended := b.ev.next(q)
		b.keep(event)
		if ended {
			b.last, b.cur = b.cur, b.last[:0]
			if b.over {
				b.last, b.over = b.last[:0], false
			}
		}
		q = rest
	}
	return n, err
}

func (b *probedBody) keep(p []byte) {
	if b.over || len(b.cur)+len(p) > probeBytes {
		b.cur, b.over = b.cur[:0], true
		return
	}
	b.cur = append(b.cur, p...)
}

func (b *probedBody) Close() error {
	err := b.rc.Close()
	b.once.Do(func() {
		answer := b.cur // a unary answer, or an event the stream ended in
		if b.sse && len(answer) == 0 {
			answer = b.last
		}
		if !b.over {
			b.pr.set(0, rpcErrorCode(answer, b.sse), "")
		}
	})
	return err
}
