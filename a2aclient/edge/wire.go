package edge

import (
	"io"
	"net/http"
	"sync/atomic"
)

// wireCount counts the bytes of every exchange as it goes on the wire:
// request line, headers and body; status line, headers and body (their
// HTTP/1.1 sizes). BenchmarkIncrementalSweep reports the count.
type wireCount struct {
	next http.RoundTripper
	n    *atomic.Int64
}

// WireCount is the layer that counts into n the bytes of every
// exchange through next.
func WireCount(next http.RoundTripper, n *atomic.Int64) http.RoundTripper {
	return wireCount{next: next, n: n}
}

// RoundTrip implements http.RoundTripper.
func (t wireCount) RoundTrip(req *http.Request) (*http.Response, error) {
	t.n.Add(max(req.ContentLength, 0) + headerBytes(req.Header) + int64(len(req.Method)+len(req.URL.RequestURI())+12))
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	t.n.Add(headerBytes(resp.Header) + int64(len(resp.Status)+11))
	resp.Body = countedBody{resp.Body, t.n}
	return resp, nil
}

// countedBody adds what is read of a body to n.
type countedBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b countedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
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
