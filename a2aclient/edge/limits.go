package edge

import (
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"a2atop/a2aclient/a2aerr"
)

// limits enforces MaxMessageBytes on every response body and on each SSE
// event, and fails a stream whose SSE event, once begun, is not finished
// within idle (the call timeout): a peer that stops half-way, or trickles
// bytes so slowly that an event never ends. Idle time between events is
// normal (a stream waits for the task's next update). The SDK's own SSE
// reader accepts events up to 10 MB and no response size limit exists.
type limits struct {
	next http.RoundTripper
	max  int64
	idle time.Duration
}

// Limits is the layer that holds every body from next to max bytes (each
// SSE event too) and fails an SSE event begun and not finished within
// idle.
func Limits(next http.RoundTripper, max int64, idle time.Duration) http.RoundTripper {
	return limits{next: next, max: max, idle: idle}
}

// RoundTrip implements http.RoundTripper.
func (t limits) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &limitedBody{rc: resp.Body, max: t.max, idle: t.idle, sse: isSSE(resp)}
	return resp, nil
}

// limitedBody is a response body under limits. Its Read fails for good
// once a limit is broken.
type limitedBody struct {
	rc   io.ReadCloser
	max  int64
	idle time.Duration
	sse  bool

	ev      sseEvents
	n       int64 // bytes read (unary) or bytes of the current SSE event
	inEvent bool  // an SSE event has begun and the stall timer runs
	timer   *time.Timer
	stalled atomic.Bool
	err     error
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.rc.Read(p)
	if n > 0 {
		if lerr := b.account(p[:n]); lerr != nil {
			b.err = lerr
			return n, lerr
		}
	}
	if err != nil && b.stalled.Load() {
		err = fmt.Errorf("%w: an SSE event begun and not finished within %s", a2aerr.ErrStalled, b.idle)
	}
	return n, err
}

// account enforces the size limits and arms the stall timer for SSE.
func (b *limitedBody) account(p []byte) error {
	if !b.sse {
		b.n += int64(len(p))
		if b.n > b.max {
			return fmt.Errorf("%w: more than %d bytes", a2aerr.ErrTooLarge, b.max)
		}
		return nil
	}
	for len(p) > 0 {
		event, rest, ended := b.ev.next(p)
		b.n += int64(len(event))
		if b.n > b.max {
			return fmt.Errorf("%w: an SSE event of more than %d bytes", a2aerr.ErrTooLarge, b.max)
		}
		if !ended {
			break
		}
		b.n, p = 0, rest
	}
	b.armStall()
	return nil
}

// armStall runs the stall clock from the first byte of an event to its end.
func (b *limitedBody) armStall() {
	if b.idle <= 0 {
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
		b.timer = time.AfterFunc(b.idle, func() {
			b.stalled.Store(true)
			b.rc.Close()
		})
		return
	}
	b.timer.Reset(b.idle)
}

func (b *limitedBody) Close() error {
	if b.timer != nil {
		b.timer.Stop()
	}
	return b.rc.Close()
}
