package edge

import (
	"errors"
	"io"
	"net/http"
	"sync"
)

// recycleEventBytes is the size of an SSE event past which its stream
// draws on the agent's BigStreamBytes. Smaller events stream freely: an
// open stream keeps at most about three times this in the SDK's buffers.
const recycleEventBytes = 64 << 10

// BigStreamBytes is what the open streams of one agent may have read in
// events past recycleEventBytes, together, counting each stream's largest
// event (the SDK holds two to three times that while the stream is open).
// One stream of a max_message_bytes (8 MiB) snapshot fits; a stream that
// would pass it is ended.
const BigStreamBytes = 8 << 20

// ErrStreamRecycled ends a stream after a big event that did not fit in
// BigStreamBytes.
var ErrStreamRecycled = errors.New("the stream was ended after a big event, to free the buffers that held it")

// streamRecycle ends an SSE stream right after an event of more than
// recycleEventBytes when the agent's other open streams already hold
// BigStreamBytes of big events. The SDK's SSE reader
// (github.com/a2aproject/a2a-go/v2 v2.4.0, internal/sse ParseDataStream)
// keeps, for the life of a stream, the buffers it grew for the largest
// line and event it read: one event of max_message_bytes on each of
// max_streams streams would leave an agent holding two to three times
// that per stream until the streams end, however small what follows. A
// task that streams a big log (its snapshot, chunks of 256 KiB) is
// followed live as long as few do at once; past BigStreamBytes, ending the
// stream (the body fails with ErrStreamRecycled once the event is read)
// frees the buffers; the watcher then reconciles with GetTask, as after
// any stream that ends, and leaves the task to sweeps until its status
// changes (stream.go): a task whose snapshot is big would grow the buffers
// again at once. What the stream sent after the big event, in the same
// read, is dropped with the stream. TestSDKStreamKeepsItsBuffers
// (stream_recycle_test.go, beside this file, the bare SDK against a
// real SDK server) pins the SDK's side: the day it fails, the reader
// lets go of its buffers and this file and its test go, with
// TestBigEventsPastTheBudgetEndTheStream
// (a2aclient/stream_recycle_test.go), which checks the layer through
// a2aclient's streams.
type streamRecycle struct {
	next http.RoundTripper
	big  *BigStreams
}

// StreamRecycle is the layer that ends an SSE stream from next after a
// big event that does not fit in big, one agent's account.
func StreamRecycle(next http.RoundTripper, big *BigStreams) http.RoundTripper {
	return streamRecycle{next, big}
}

// BigStreams counts what the open streams of one agent hold in big
// events, against BigStreamBytes. The zero value holds nothing; safe for
// concurrent use.
type BigStreams struct {
	mu   sync.Mutex
	held int
}

// Held is what the open streams hold in big events now.
func (p *BigStreams) Held() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held
}

// grow takes n more bytes if they fit.
func (p *BigStreams) grow(n int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held+n > BigStreamBytes {
		return false
	}
	p.held += n
	return true
}

func (p *BigStreams) release(n int) {
	p.mu.Lock()
	p.held -= n
	p.mu.Unlock()
}

// RoundTrip implements http.RoundTripper.
func (t streamRecycle) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || !isSSE(resp) {
		return resp, err
	}
	resp.Body = &recycledBody{rc: resp.Body, pool: t.big}
	return resp, nil
}

// recycledBody is an SSE body that reports its end after a big event
// that does not fit in its agent's BigStreamBytes.
type recycledBody struct {
	rc     io.ReadCloser
	pool   *BigStreams
	ev     sseEvents
	n      int  // bytes of the current event
	held   int  // bytes taken from pool: the largest big event so far
	done   bool // a big event ended: the stream ends here
	closed sync.Once
}

func (b *recycledBody) Read(p []byte) (int, error) {
	if b.done {
		return 0, ErrStreamRecycled
	}
	n, err := b.rc.Read(p)
	for off := 0; off < n; {
		event, rest, ended := b.ev.next(p[off:n])
		b.n += len(event)
		if !ended {
			break
		}
		end := n - len(rest)
		if b.n > recycleEventBytes && b.n > b.held {
			if !b.pool.grow(b.n - b.held) {
				b.done = true
				return end, nil // up to the blank line that ends the big event
			}
			b.held = b.n
		}
		b.n, off = 0, end
	}
	return n, err
}

func (b *recycledBody) Close() error {
	b.closed.Do(func() { b.pool.release(b.held) })
	return b.rc.Close()
}
