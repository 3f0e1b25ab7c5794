package a2aclient

import (
	"errors"
	"io"
	"net/http"
)

// recycleEventBytes is the size of an SSE event after which its stream is
// ended.
const recycleEventBytes = 256 << 10

// errStreamRecycled ends a stream after an event of more than
// recycleEventBytes.
var errStreamRecycled = errors.New("the stream was ended after an event of more than 256 KiB, to free the buffers that held it")

// streamRecycle ends an SSE stream right after an event of more than
// recycleEventBytes. The SDK's SSE reader (github.com/a2aproject/a2a-go/v2
// v2.4.0, internal/sse ParseDataStream) keeps, for the life of a stream,
// the buffers it grew for the largest line and event it read: one event of
// max_message_bytes on each of max_streams streams would leave an agent
// holding twice that per stream until the streams end, however small what
// follows. Ending the stream (the body fails with errStreamRecycled once
// the event is read) frees them; the watcher then reconciles with GetTask,
// as after any stream that ends, and leaves the task to sweeps until its
// status changes (stream.go): a task whose snapshot is big would grow the
// buffers again at once. What the stream sent after the big event, in the
// same read, is dropped with the stream. TestSDKStreamKeepsItsBuffers pins
// the SDK's side: the day it fails, the reader lets go of its buffers and
// this file can go.
type streamRecycle struct{ next http.RoundTripper }

func streamRecycleLayer(next http.RoundTripper) http.RoundTripper { return streamRecycle{next} }

// RoundTrip implements http.RoundTripper.
func (t streamRecycle) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || !isSSE(resp) {
		return resp, err
	}
	resp.Body = &recycledBody{rc: resp.Body}
	return resp, nil
}

// recycledBody is an SSE body that reports its end after a big event.
type recycledBody struct {
	rc   io.ReadCloser
	ev   sseEvents
	n    int  // bytes of the current event
	done bool // a big event ended: the stream ends here
}

func (b *recycledBody) Read(p []byte) (int, error) {
	if b.done {
		return 0, errStreamRecycled
	}
	n, err := b.rc.Read(p)
	for off := 0; off < n; {
		event, rest, ended := b.ev.next(p[off:n])
		b.n += len(event)
		if !ended {
			break
		}
		end := n - len(rest)
		if b.n > recycleEventBytes {
			b.done = true
			return end, nil // up to the blank line that ends the big event
		}
		b.n, off = 0, end
	}
	return n, err
}

func (b *recycledBody) Close() error { return b.rc.Close() }
