package a2aclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
)

// probe collects, for one call, what the SDK does not tell us: the HTTP
// status and the JSON-RPC error code seen on the wire. The RoundTripper
// fills it; the caller reads it after the SDK call returns.
type probe struct {
	mu     sync.Mutex
	status int
	code   int
	url    string
	grpc   codes.Code
}

func (p *probe) setGRPC(c codes.Code) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.grpc = c
}

func (p *probe) set(status, code int, url string) {
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

func (p *probe) get() (status, code int, url string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status, p.code, p.url
}

type probeKey struct{}
type afterKey struct{}

func withProbe(ctx context.Context) (context.Context, *probe) {
	p := &probe{}
	return context.WithValue(ctx, probeKey{}, p), p
}

func probeFrom(ctx context.Context) *probe {
	p, _ := ctx.Value(probeKey{}).(*probe)
	return p
}

// captureTransport is the per-agent http.RoundTripper under the SDK. It
// keeps the raw capture ring, enforces MaxMessageBytes on bodies and SSE
// events, recovers status and JSON-RPC codes into the call's probe, keeps
// secret headers away from hosts the config did not name, and counts body
// bytes on the wire.
type captureTransport struct {
	base    http.RoundTripper
	ring    *ring
	red     *redactor
	allowed func(hostPort string) bool
	secret  []string // header names carrying secrets
	max     int64
	idle    time.Duration // an SSE event begun but not finished within idle fails the stream
	wire    atomic.Int64
}

// RoundTrip implements http.RoundTripper.
func (t *captureTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = t.guard(req)
	fix := refFixFrom(req.Context())
	if fix != nil {
		req = fix.rewrite(req)
	}
	rec := &record{ex: newExchange(req)}
	var reqBody []byte
	if req.GetBody != nil {
		if rc, err := req.GetBody(); err == nil {
			reqBody, _ = io.ReadAll(io.LimitReader(rc, captureRequestBytes))
			rc.Close()
		}
	}
	t.wire.Add(max(req.ContentLength, 0) + headerBytes(req.Header) + int64(len(req.Method)+len(req.URL.RequestURI())+12))
	var hdr strings.Builder
	for name, vals := range req.Header {
		for _, v := range vals {
			hdr.WriteString(t.red.header(name, v))
			hdr.WriteByte('\n')
		}
	}
	rec.req = append([]byte(hdr.String()+"\n"), reqBody...)
	rec.ex.RPC = rpcName(req.Method, req.URL.Path, string(reqBody))
	t.ring.add(rec)

	start := time.Now()
	pr := probeFrom(req.Context())
	resp, err := t.base.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusMethodNotAllowed && req.Method == http.MethodPost &&
		strings.HasSuffix(req.URL.Path, ":subscribe") {
		// The spec says POST for REST :subscribe, the proto says GET
		// (A2A#1574); the SDK only sends POST. Retry once with GET.
		resp.Body.Close()
		get := req.Clone(req.Context())
		get.Method, get.Body, get.GetBody, get.ContentLength = http.MethodGet, nil, nil, 0
		get.Header.Del("Content-Type")
		rec.mu.Lock()
		rec.ex.Method = "POST→GET"
		rec.mu.Unlock()
		resp, err = t.base.RoundTrip(get)
	}
	if err != nil {
		rec.mu.Lock()
		rec.ex.Err, rec.ex.Duration = err.Error(), time.Since(start)
		rec.mu.Unlock()
		pr.set(0, 0, req.URL.String())
		return nil, err
	}
	t.wire.Add(headerBytes(resp.Header) + int64(len(resp.Status)+11))
	rec.mu.Lock()
	rec.ex.Status = resp.StatusCode
	rec.mu.Unlock()
	pr.set(resp.StatusCode, 0, req.URL.String())
	sse := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	if resp.StatusCode != http.StatusOK {
		fix = nil // an error body has no messages
	}
	resp.Body = &body{rc: resp.Body, t: t, rec: rec, pr: pr, sse: sse, start: start, fix: fix}
	if !sse {
		fixRESTError(resp)
	}
	return resp, nil
}

// guard removes secret headers from a request to a host the config did not
// name, and gives REST ListTasks the statusTimestampAfter parameter the SDK
// forgets (see doc.go).
func (t *captureTransport) guard(req *http.Request) *http.Request {
	leak := false
	if !t.allowed(hostPort(req.URL.Scheme + "://" + req.URL.Host)) {
		for _, n := range t.secret {
			if req.Header.Get(n) != "" {
				leak = true
			}
		}
	}
	q := req.URL.Query()
	fixAfter := req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/tasks") &&
		q.Get("lastUpdatedAfter") != "" && q.Get("statusTimestampAfter") == ""
	if !leak && !fixAfter {
		return req
	}
	r2 := req.Clone(req.Context())
	if leak {
		for _, n := range t.secret {
			r2.Header.Del(n)
		}
	}
	if fixAfter {
		v := q.Get("lastUpdatedAfter")
		if at, ok := req.Context().Value(afterKey{}).(time.Time); ok {
			v = at.UTC().Format(time.RFC3339Nano)
		}
		q.Set("statusTimestampAfter", v)
		r2.URL.RawQuery = q.Encode()
	}
	return r2
}

// body wraps a response body: it caps its size, tees it into the capture
// record, and on close recovers the JSON-RPC error code.
type body struct {
	rc    io.ReadCloser
	t     *captureTransport
	rec   *record
	pr    *probe
	sse   bool
	start time.Time
	fix   *refFix // nil unless the call is on an A2A 0.3 HTTP+JSON interface
	keep  []byte  // with fix: the whole unary body, or the current SSE event

	n       int64 // bytes read (unary) or bytes of the current SSE event
	lastNL  bool  // the previous byte was '\n' (SSE event boundary detection)
	inEvent bool  // an SSE event has begun and the stall timer runs
	timer   *time.Timer
	stalled atomic.Bool
	once    sync.Once
	err     error
}

func (b *body) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.rc.Read(p)
	if n > 0 {
		b.t.wire.Add(int64(n))
		b.rec.appendResponse(p[:n], b.sse)
		if lerr := b.account(p[:n]); lerr != nil {
			b.err = lerr
			b.fix, b.keep = nil, nil
			return n, lerr
		}
	}
	if err == io.EOF && b.fix != nil && !b.sse {
		// The SDK decodes after reading to the end: record now.
		b.fix.scan(b.keep)
		b.fix, b.keep = nil, nil
	}
	if err != nil && b.stalled.Load() {
		err = fmt.Errorf("%w: an SSE event begun and not finished within %s", ErrStalled, b.t.idle)
	}
	return n, err
}

// account enforces the size limits and arms the stall timer for SSE.
func (b *body) account(p []byte) error {
	if !b.sse {
		b.n += int64(len(p))
		if b.n > b.t.max {
			return fmt.Errorf("%w: more than %d bytes", ErrTooLarge, b.t.max)
		}
		if b.fix != nil {
			b.keep = append(b.keep, p...)
		}
		return nil
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			b.n += int64(len(p))
			b.lastNL = false
			if b.fix != nil {
				b.keep = append(b.keep, p...)
			}
			break
		}
		if b.fix != nil {
			b.keep = append(b.keep, p[:i+1]...)
		}
		// A line of only "\n" (or "\r\n") after a newline ends an event.
		if (i == 0 || (i == 1 && p[0] == '\r')) && b.lastNL {
			b.n = 0
			if b.fix != nil {
				b.fix.scanSSE(b.keep)
				b.keep = b.keep[:0]
			}
		} else {
			b.n += int64(i + 1)
		}
		b.lastNL = true
		p = p[i+1:]
	}
	if b.n > b.t.max {
		return fmt.Errorf("%w: an SSE event of more than %d bytes", ErrTooLarge, b.t.max)
	}
	b.armStall()
	return nil
}

// armStall makes an SSE event that is not complete within idle of its
// first byte fail the stream: a peer that stops half-way, or trickles
// bytes so slowly that an event never ends. Idle time between events is
// normal (a stream waits for the task's next update).
func (b *body) armStall() {
	if b.t.idle <= 0 {
		return
	}
	if b.n == 0 {
		if b.timer != nil && b.inEvent {
			b.timer.Stop()
		}
		b.inEvent = false
		return
	}
	if b.inEvent {
		return // the clock runs from the event's first byte
	}
	b.inEvent = true
	if b.timer == nil {
		b.timer = time.AfterFunc(b.t.idle, func() {
			b.stalled.Store(true)
			b.rc.Close()
		})
		return
	}
	b.timer.Reset(b.t.idle)
}

func (b *body) Close() error {
	err := b.rc.Close()
	b.once.Do(b.finish)
	return err
}

// finish records the outcome and recovers a JSON-RPC error code.
func (b *body) finish() {
	if b.timer != nil {
		b.timer.Stop()
	}
	b.rec.mu.Lock()
	defer b.rec.mu.Unlock()
	b.rec.ex.Duration = time.Since(b.start)
	if b.err != nil {
		b.rec.ex.Err = b.err.Error()
	} else if b.stalled.Load() {
		b.rec.ex.Err = "stalled mid-event"
	}
	code := rpcErrorCode(b.rec.rsp, b.sse)
	if code != 0 {
		b.rec.ex.RPCCode = code
		b.pr.set(0, code, "")
	}
}

// rpcErrorCode finds a JSON-RPC error code in a captured body: the whole
// body for unary calls, the last SSE event for streams.
func rpcErrorCode(buf []byte, sse bool) int {
	// Only JSON-RPC carries JSON-RPC codes; a REST error body's "code" is
	// a google.rpc.Status code, not ours to report.
	if !bytes.Contains(buf, []byte(`"error"`)) || !bytes.Contains(buf, []byte(`"jsonrpc"`)) {
		return 0
	}
	if sse {
		buf = bytes.TrimRight(buf, "\r\n")
		if i := bytes.LastIndex(buf, []byte("data:")); i >= 0 {
			buf = bytes.TrimSpace(buf[i+len("data:"):])
		}
	}
	var v struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(buf, &v) != nil || v.Error == nil {
		return 0
	}
	return v.Error.Code
}

func (p *probe) grpcCode() codes.Code {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.grpc
}

// headerBytes approximates the size of h on an HTTP/1.1 wire.
func headerBytes(h http.Header) int64 {
	var n int64
	for k, vs := range h {
		for _, v := range vs {
			n += int64(len(k) + len(v) + 4)
		}
	}
	return n + 2
}
