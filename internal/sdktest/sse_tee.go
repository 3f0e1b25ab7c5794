package sdktest

import (
	"bytes"
	"io"
	"net/http"
	"sync"
)

// SSETee is a RoundTripper over net/http's default that keeps the bytes
// of every SSE response it carries, as they came.
type SSETee struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// RoundTrip sends r and tees an event-stream answer's body.
func (t *SSETee) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && resp.Header.Get("Content-Type") == "text/event-stream" {
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.TeeReader(resp.Body, lockedWriter{t}), resp.Body}
	}
	return resp, err
}

// Bytes returns a copy of what the streams carried so far.
func (t *SSETee) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return bytes.Clone(t.buf.Bytes())
}

type lockedWriter struct{ t *SSETee }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.t.mu.Lock()
	defer w.t.mu.Unlock()
	return w.t.buf.Write(p)
}
