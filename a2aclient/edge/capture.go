package edge

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"a2atop/a2aclient/a2aerr"
	"a2atop/model"
)

// capture records every HTTP exchange of one agent in its ring, for the
// raw view: the request as it was sent (headers redacted, the body's first
// CaptureRequestBytes), the status and the response as the agent sent it
// (the head of a unary body, the tail of a stream), its JSON-RPC error
// code, how long it took and the limit its body broke. gRPC calls are
// recorded by interceptors (grpc_capture.go).
type capture struct {
	next http.RoundTripper
	ring *Ring
	red  *Redactor
}

// Capture is the layer that records every exchange through next in
// ring, its headers redacted by red.
func Capture(next http.RoundTripper, ring *Ring, red *Redactor) http.RoundTripper {
	return capture{next: next, ring: ring, red: red}
}

// RoundTrip implements http.RoundTripper.
func (t capture) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := t.start(req)
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if err != nil {
		rec.ex.Err, rec.ex.Duration = err.Error(), time.Since(start)
		return nil, err
	}
	rec.ex.Status = resp.StatusCode
	resp.Body = &capturedBody{rc: resp.Body, rec: rec, sse: isSSE(resp), start: start}
	return resp, nil
}

// start records req, as it goes out, in the ring.
func (t capture) start(req *http.Request) *record {
	rec := &record{ex: newExchange(req)}
	var body []byte
	if req.GetBody != nil {
		if rc, err := req.GetBody(); err == nil {
			body, _ = io.ReadAll(io.LimitReader(rc, CaptureRequestBytes))
			rc.Close()
		}
	}
	var hdr strings.Builder
	for name, vals := range req.Header {
		for _, v := range vals {
			hdr.WriteString(t.red.header(name, v))
			hdr.WriteByte('\n')
		}
	}
	rec.req = append([]byte(hdr.String()+"\n"), body...)
	rec.ex.RPC = rpcName(req.Method, req.URL.EscapedPath(), string(body)) // escaped: an id cannot look like a route
	t.ring.add(rec)
	return rec
}

// capturedBody tees a response body into its record and, on close,
// records the outcome.
type capturedBody struct {
	rc    io.ReadCloser
	rec   *record
	sse   bool
	start time.Time
	limit error // the limit the body broke (a2aerr.ErrTooLarge, a2aerr.ErrStalled)
	once  sync.Once
}

func (b *capturedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.rec.appendResponse(p[:n], b.sse)
	}
	if err != nil && (errors.Is(err, a2aerr.ErrTooLarge) || errors.Is(err, a2aerr.ErrStalled)) {
		b.limit = err
	}
	return n, err
}

func (b *capturedBody) Close() error {
	err := b.rc.Close()
	b.once.Do(b.finish)
	return err
}

func (b *capturedBody) finish() {
	b.rec.mu.Lock()
	defer b.rec.mu.Unlock()
	b.rec.ex.Duration = time.Since(b.start)
	if b.limit != nil {
		b.rec.ex.Err = b.limit.Error()
	}
	b.rec.ex.RPCCode = rpcErrorCode(b.rec.rsp, b.sse)
}

// rpcErrorCode finds a JSON-RPC error code in a body: a unary answer, or
// the last SSE event of a stream.
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

// Capture limits: how much of each body the raw view keeps (exported
// for the tests of the capture through a Manager). A stream
// keeps the tail of what it sent, at most twice captureStreamBytes while
// it is open: a fleet holds one per open stream (1,500 in a fleet of 50
// agents streaming 30 tasks each), so it is kept small.
const (
	CaptureRequestBytes  = 16 << 10
	CaptureResponseBytes = 64 << 10
	captureStreamBytes   = 8 << 10
)

// record is one exchange being captured. It is filled while the response
// streams in, so it has its own lock.
type record struct {
	mu  sync.Mutex
	ex  model.Exchange
	req []byte
	rsp []byte // head of a unary body, or the tail of an SSE stream
	cut bool   // rsp lost bytes at its start (SSE tail) or end (unary head)
}

func (r *record) appendResponse(p []byte, tail bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !tail {
		room := CaptureResponseBytes - len(r.rsp)
		if room <= 0 {
			r.cut = true
			return
		}
		if len(p) > room {
			p, r.cut = p[:room], true
		}
		r.rsp = append(r.rsp, p...)
		return
	}
	if len(p) >= captureStreamBytes { // a big event: its tail alone, in a buffer of its own
		r.cut = r.cut || len(r.rsp) > 0 || len(p) > captureStreamBytes
		r.rsp = append(make([]byte, 0, 2*captureStreamBytes), p[len(p)-captureStreamBytes:]...)
		return
	}
	r.rsp = append(r.rsp, p...)
	if len(r.rsp) > 2*captureStreamBytes {
		n := copy(r.rsp, r.rsp[len(r.rsp)-captureStreamBytes:])
		r.rsp, r.cut = r.rsp[:n], true
	}
}

// CaptureBytes bounds what one agent's ring holds, requests and responses
// together: the newest exchanges are kept first, so a few large answers
// push the old ones out rather than adding up to CaptureN of them. The
// rings of a fleet hold at most captureFleetBytes together: each agent's
// is an even share of it, at most CaptureBytes and at least
// minCaptureBytes (a few exchanges whole).
const (
	CaptureBytes      = 1 << 20
	captureFleetBytes = 4 << 20
	minCaptureBytes   = 64 << 10
)

// CaptureShare is what one agent's ring may hold in a fleet of n agents.
func CaptureShare(n int) int {
	return min(CaptureBytes, max(minCaptureBytes, captureFleetBytes/max(n, 1)))
}

// Ring keeps the last n records of one agent, at most limit bytes of
// them (the newest one always). Safe for concurrent use.
type Ring struct {
	mu    sync.Mutex
	n     int
	limit int
	recs  []*record // oldest first
}

// NewRing keeps the last n exchanges, at most CaptureBytes of them until
// SetLimit says otherwise.
func NewRing(n int) *Ring { return &Ring{n: n, limit: CaptureBytes} }

// SetLimit sets what the ring may hold, in bytes.
func (g *Ring) SetLimit(n int) {
	g.mu.Lock()
	g.limit = n
	g.mu.Unlock()
}

func (g *Ring) add(r *record) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.recs = append(g.recs, r)
	total := 0
	for _, x := range g.recs {
		total += x.size()
	}
	drop := max(len(g.recs)-g.n, 0)
	for ; drop < len(g.recs)-1 && total > g.limit; drop++ {
		total -= g.recs[drop].size()
	}
	if drop > 0 {
		n := copy(g.recs, g.recs[drop:])
		clear(g.recs[n:])
		g.recs = g.recs[:n]
	}
}

// size is what the record holds.
func (r *record) size() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.req) + len(r.rsp)
}

// Snapshot returns the records, oldest first, redacted with red.
func (g *Ring) Snapshot(red *Redactor) []model.Exchange {
	g.mu.Lock()
	recs := append([]*record(nil), g.recs...)
	g.mu.Unlock()
	out := make([]model.Exchange, 0, len(recs))
	for _, r := range recs {
		r.mu.Lock()
		ex := r.ex
		ex.Request = red.Text(string(r.req))
		rsp := string(r.rsp)
		if r.cut && len(rsp) > 0 {
			rsp = "…" + rsp
		}
		ex.Response = red.Text(rsp)
		r.mu.Unlock()
		ex.URL = red.Text(ex.URL)
		ex.Err = red.Text(ex.Err)
		out = append(out, ex)
	}
	return out
}

// rpcName guesses the A2A operation from an HTTP request, for the raw view.
func rpcName(method, path, body string) string {
	if i := strings.Index(body, `"method":"`); i >= 0 {
		rest := body[i+len(`"method":"`):]
		if j := strings.IndexByte(rest, '"'); j >= 0 {
			return rest[:j]
		}
	}
	if name := pushRPCName(method, path); name != "" {
		return name
	}
	switch {
	case strings.HasSuffix(path, "/tasks") && method == "GET":
		return "ListTasks"
	case strings.HasSuffix(path, ":subscribe"):
		return "SubscribeToTask"
	case strings.HasSuffix(path, ":cancel"):
		return "CancelTask"
	case strings.HasSuffix(path, "/message:send"):
		return "SendMessage"
	case strings.HasSuffix(path, "/message:stream"):
		return "SendStreamingMessage"
	case strings.Contains(path, "/tasks/") && method == "GET":
		return "GetTask"
	case strings.HasSuffix(path, "agent-card.json"):
		return "card"
	}
	return ""
}

// newExchange starts the capture of one HTTP request.
func newExchange(req *http.Request) model.Exchange {
	return model.Exchange{At: time.Now(), Method: req.Method, URL: req.URL.String()}
}
