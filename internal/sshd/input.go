package sshd

import (
	"io"
	"sync"
	"time"
)

// input is a session's keys as the program reads them: at most rate
// bytes a second past a burst (a flood waits here, in its own session,
// while the client's window fills), and idle called once when nothing
// came for the idle timeout; eof called once the client closed its side
// (a session closed on a connection that stays up). Read is called by one goroutine, the
// program's.
type input struct {
	r     io.Reader
	rate  float64 // bytes a second
	burst float64
	idle  time.Duration

	tokens float64
	last   time.Time
	eof    func()

	mu     sync.Mutex
	timer  *time.Timer
	closed bool
}

func newInput(r io.Reader, rate, burst int, idle time.Duration, onIdle, eof func()) *input {
	in := &input{r: r, rate: float64(rate), burst: float64(burst), idle: idle, tokens: float64(burst), last: time.Now(), eof: eof}
	in.timer = time.AfterFunc(idle, onIdle)
	return in
}

// Read reads what the client typed, within the rate.
func (in *input) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	in.refill()
	for in.tokens < 1 {
		time.Sleep(time.Duration((1 - in.tokens) / in.rate * float64(time.Second)))
		in.refill()
	}
	p = p[:min(len(p), int(in.tokens))]
	n, err := in.r.Read(p)
	in.tokens -= float64(n)
	if err != nil {
		in.eof()
	}
	if n > 0 {
		in.mu.Lock()
		if !in.closed {
			in.timer.Reset(in.idle)
		}
		in.mu.Unlock()
	}
	return n, err
}

func (in *input) refill() {
	now := time.Now()
	in.tokens = min(in.burst, in.tokens+now.Sub(in.last).Seconds()*in.rate)
	in.last = now
}

// stop ends the idle timer.
func (in *input) stop() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.closed = true
	in.timer.Stop()
}
