package hub

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// loopWait bounds how long /readyz waits for the loop to answer.
const loopWait = 2 * time.Second

// readiness is what /readyz answers from: whether the hub runs, and how
// its last reading of the journal went.
type readiness struct {
	mu        sync.Mutex
	followed  time.Time // the last follow of the journal that worked
	followErr error     // the last follow's error; nil when it worked
}

func (r *readiness) noteFollow(now time.Time, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.followErr = err
	if err == nil {
		r.followed = now
	}
}

func (r *readiness) lastFollow() (time.Time, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.followed, r.followErr
}

// serveHealthz is GET /healthz: the process serves HTTP. It takes no
// token (a liveness probe has none) and says nothing else.
func (h *Hub) serveHealthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte("ok\n"))
}

// serveReadyz is GET /readyz: 200 "ready" while the hub runs, its loop
// answers, its shared record (if it has one) can be reached and is read
// to its end, and its last reading of the journal worked; else 503 with the
// reason in words. It takes no token (a readiness probe has none) and
// names no agent, operator or path.
func (h *Hub) serveReadyz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if why := h.notReady(r.Context()); why != "" {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = fmt.Fprintf(w, "not ready: %s\n", why)
		return
	}
	_, _ = w.Write([]byte("ready\n"))
}

// notReady says why the hub should not be sent dashboards now, or "".
func (h *Hub) notReady(ctx context.Context) string {
	h.mu.Lock()
	running := h.running
	h.mu.Unlock()
	if !running {
		return "the hub is starting (its watchers and loop are not running yet)"
	}
	select {
	case <-h.done:
		return "the hub is stopping"
	default:
	}
	ctx, cancel := context.WithTimeout(ctx, loopWait)
	defer cancel()
	if err := h.call(ctx, func() {}); err != nil {
		return fmt.Sprintf("the hub's loop did not answer within %s (%v)", loopWait, err)
	}
	if err := h.svc.RecordReachable(ctx); err != nil {
		h.log.Warn("/readyz: the team's record is unreachable", "err", err)
		return "the team's record is unreachable (the hub's log has the error)"
	}
	if _, err := h.ready.lastFollow(); err != nil {
		return "the journal cannot be read: the last attempt failed (the hub's log has the error)"
	}
	return ""
}
