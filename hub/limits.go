package hub

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
)

// What one operator's requests may hold of the hub, whatever they send:
// a body of at most maxSmallBody (maxBody for a decision), at most
// MaxRequestsPerOperator requests at once besides MaxFeedsPerOperator
// feed connections, at most MaxClaimsPerOperator claims; and the
// decision bodies held at once, every operator's together, within
// DecisionBodyBytes. Nothing is kept for a task the hub's fleet does
// not hold (claims.go, notes.go).

// maxSmallBody bounds the body of every endpoint but decisions: a claim,
// a release, a cancel or a note is an agent, a task id and a few words.
const maxSmallBody = 16 << 10

// The routes with a body limit or a count of their own.
const (
	routeDecisions = "POST /v1/decisions"
	routeFeed      = "GET /v1/feed"
)

// bodyLimit is the largest body the route takes.
func bodyLimit(pattern string) int64 {
	if pattern == routeDecisions {
		return maxBody
	}
	return maxSmallBody
}

// gate counts what each operator's requests hold now, and the decision
// bodies held. Safe for concurrent use; the zero value is ready.
type gate struct {
	mu        sync.Mutex
	requests  map[string]int // operator -> requests being served, the feed aside
	feeds     map[string]int // operator -> feed connections
	decisions int64          // bytes of the decision bodies being served
}

// admission is what enter took, for leave to give back.
type admission struct {
	op        string
	feed      bool
	decisions int64
}

// enter admits a request of op on the route, or writes the refusal
// (429 past the operator's bounds, 413 for a body declared larger than
// the route takes, 503 past the decision bodies' budget) and returns
// false. A request admitted must leave.
func (h *Hub) enter(w http.ResponseWriter, r *http.Request, op *Operator, pattern string) (admission, bool) {
	limit := bodyLimit(pattern)
	if r.ContentLength > limit {
		writeError(w, http.StatusRequestEntityTooLarge, tooLarge(limit))
		return admission{}, false
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	a := admission{op: op.Name, feed: pattern == routeFeed}
	if pattern == routeDecisions {
		a.decisions = limit // a body of unknown length may be the largest
		if r.ContentLength >= 0 {
			a.decisions = r.ContentLength
		}
	}
	g := &h.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.requests == nil {
		g.requests, g.feeds = map[string]int{}, map[string]int{}
	}
	switch {
	case a.feed && g.feeds[op.Name] >= h.o.MaxFeedsPerOperator:
		w.Header().Set("Retry-After", "5")
		writeError(w, http.StatusTooManyRequests, fmt.Sprintf("operator %s has %d feed connections open, the most the hub serves one operator; close a dashboard, or wait for a dead connection to time out",
			op.Name, g.feeds[op.Name]))
		return admission{}, false
	case !a.feed && g.requests[op.Name] >= h.o.MaxRequestsPerOperator:
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusTooManyRequests, fmt.Sprintf("operator %s has %d requests in flight, the most the hub serves one operator at once; send again when one has ended",
			op.Name, g.requests[op.Name]))
		return admission{}, false
	case a.decisions > 0 && g.decisions+a.decisions > h.o.DecisionBodyBytes:
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, fmt.Sprintf("the hub holds %s of other decisions now, the most it holds at once; nothing was sent: send again in a moment",
			sizeWords(g.decisions)))
		return admission{}, false
	}
	if a.feed {
		g.feeds[op.Name]++
	} else {
		g.requests[op.Name]++
	}
	g.decisions += a.decisions
	return a, true
}

// leave gives back what enter took.
func (h *Hub) leave(a admission) {
	g := &h.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	counts := g.requests
	if a.feed {
		counts = g.feeds
	}
	if counts[a.op]--; counts[a.op] <= 0 {
		delete(counts, a.op)
	}
	g.decisions -= a.decisions
}

// tooLarge is the refusal of a body larger than limit.
func tooLarge(limit int64) string {
	return "the body is larger than " + sizeWords(limit) + ", the most this endpoint takes"
}

// sizeWords is n bytes in words: "16 KiB", "16 MiB", "900 bytes".
func sizeWords(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
