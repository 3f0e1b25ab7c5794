package a2aclient

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// cutAfterFirstFrame makes the SDK server's SubscribeToTask streams end
// after their first event, drops times, as a flaky proxy would.
type cutAfterFirstFrame struct {
	drops atomic.Int32
	subs  atomic.Int32
}

func (c *cutAfterFirstFrame) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if !bytes.Contains(body, []byte("SubscribeToTask")) {
			next.ServeHTTP(w, r)
			return
		}
		if c.subs.Add(1) > c.drops.Load() {
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(&cuttingWriter{ResponseWriter: w}, r)
	})
}

type cuttingWriter struct {
	http.ResponseWriter
	wrote, cut bool
}

func (c *cuttingWriter) Write(p []byte) (int, error) {
	if c.cut {
		return 0, net.ErrClosed
	}
	c.wrote = true
	return c.ResponseWriter.Write(p)
}

func (c *cuttingWriter) Flush() {
	if c.cut {
		return
	}
	c.ResponseWriter.(http.Flusher).Flush()
	if c.wrote {
		if conn, _, err := http.NewResponseController(c.ResponseWriter).Hijack(); err == nil {
			conn.Close()
		}
		c.cut = true
	}
}

// A server that drops streams mid-task: the watcher reconciles with
// GetTask, resubscribes while the task is active, and sees it complete.
func TestStreamDroppedMidTask(t *testing.T) {
	cut := &cutAfterFirstFrame{}
	cut.drops.Store(3)
	a := sdktest.Start(t, sdktest.JSONRPC, true, cut.wrap)
	_, c := runManager(t, []AgentOptions{fast("a", a.URL())}, Options{})
	held := a.Send(t, "hold")
	c.waitFor(t, "resubscribed past the drops", 10*time.Second, func([]model.Event) bool { return cut.subs.Load() > 3 })
	c.waitFor(t, "streaming", 5*time.Second, healthIs("a", model.HealthStreaming))
	a.Exec.Release()
	c.waitFor(t, "completed over the stream", 10*time.Second, func(evs []model.Event) bool {
		for _, e := range evs {
			if e.Kind == model.EventStatus && e.Source == model.SourceStream && e.Status.TaskID == held &&
				e.Status.Status.State == a2a.TaskStateCompleted {
				return true
			}
		}
		return false
	})
}

// trickle answers every JSON-RPC POST one byte at a time, forever.
func trickle(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		for i := 0; ; i++ {
			if _, err := w.Write([]byte(`{"jsonrpc":"2.0"`[i%16 : i%16+1])); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
}

// A slow (trickling) server gets a timeout on its own row; the other
// agents carry on.
func TestSlowServerDelaysNoOne(t *testing.T) {
	slow := sdktest.Start(t, sdktest.JSONRPC, true, trickle)
	ok := sdktest.Start(t, sdktest.REST, true, nil)
	so := fast("slow", slow.URL())
	so.CallTimeout = 300 * time.Millisecond
	_, c := runManager(t, []AgentOptions{so, fast("ok", ok.URL())}, Options{})
	id := ok.Send(t, "done")
	c.waitFor(t, "ok agent finds its task", 5*time.Second, func(evs []model.Event) bool {
		return hasTask(evs, "ok", id, a2a.TaskStateCompleted)
	})
	c.waitFor(t, "slow agent times out", 5*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "slow")
		return h != nil && h.State == model.HealthUnreachable && strings.Contains(h.Err, "timed out")
	})
}

// Malformed JSON, malformed SSE, an oversized SSE event, an SSE event
// that stops half-way and an unknown error code: each is a problem of its
// own agent, in words, with the real code recovered.
func TestHostilePeer(t *testing.T) {
	bad := sdktest.StartHostile(t, "badjson")
	sse := sdktest.StartHostile(t, "badsse")
	big := sdktest.StartHostile(t, "bigsse")
	stall := sdktest.StartHostile(t, "stall")
	bo := fast("big", big.URL)
	bo.MaxMessageBytes = 16 << 10
	so := fast("stall", stall.URL)
	so.CallTimeout = 300 * time.Millisecond
	to := fast("tricklesse", sdktest.StartHostile(t, "tricklesse").URL)
	to.CallTimeout = 300 * time.Millisecond
	m, c := runManager(t, []AgentOptions{fast("badjson", bad.URL), fast("badsse", sse.URL), bo, so, to}, Options{})
	c.waitFor(t, "malformed JSON is a protocol error", 5*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "badjson")
		return h != nil && h.State == model.HealthBackoff && strings.Contains(h.Err, "protocol error")
	})
	c.waitFor(t, "malformed SSE shows on the row", 5*time.Second, func(evs []model.Event) bool {
		for _, e := range evs {
			if e.Agent == "badsse" && e.Kind == model.EventHealth && strings.Contains(e.Health.Err, "stream: protocol error") {
				return true
			}
		}
		return false
	})
	c.waitFor(t, "oversized SSE event", 5*time.Second, func(evs []model.Event) bool {
		for _, e := range evs {
			if e.Agent == "big" && e.Kind == model.EventHealth && strings.Contains(e.Health.Err, "response too large") {
				return true
			}
		}
		return false
	})
	c.waitFor(t, "stalled SSE event", 5*time.Second, func(evs []model.Event) bool {
		for _, e := range evs {
			if e.Agent == "stall" && e.Kind == model.EventHealth && strings.Contains(e.Health.Err, "stream stalled") {
				return true
			}
		}
		return false
	})
	c.waitFor(t, "an SSE event trickled byte by byte stalls", 5*time.Second, func(evs []model.Event) bool {
		for _, e := range evs {
			if e.Agent == "tricklesse" && e.Kind == model.EventHealth && strings.Contains(e.Health.Err, "stream stalled") {
				return true
			}
		}
		return false
	})
	if !hasTask(c.snapshot(), "badsse", "t1", a2a.TaskStateWorking) {
		t.Errorf("the valid snapshot of the badsse peer was not reported")
	}
	_, err := m.Cancel(t.Context(), "badsse", "t1")
	var coded interface {
		RPCCode() int
		HTTPStatus() int
	}
	if !asInterface(err, &coded) || coded.RPCCode() != -32050 || coded.HTTPStatus() != 200 {
		t.Fatalf("Cancel error = %v; want RPCCode -32050 (the SDK maps it to internal error) and HTTP 200", err)
	}
	var sawCode bool
	for _, ex := range m.Capture("badsse") {
		sawCode = sawCode || ex.RPC == "CancelTask" && ex.RPCCode == -32050
	}
	if !sawCode {
		t.Errorf("capture lacks the CancelTask exchange with code -32050: %+v", m.Capture("badsse"))
	}
}
