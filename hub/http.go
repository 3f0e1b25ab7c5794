package hub

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"
)

// maxBody bounds a decision's body (it carries the message sent); every
// other body is at most maxSmallBody (limits.go).
const maxBody = 16 << 20

// Handler serves the hub's API; every route needs an operator's bearer
// token:
//
//	GET    /v1/me          who the token is (Me)
//	GET    /v1/feed        the feed (SSE): snapshot, then events; Last-Event-ID resumes
//	POST   /v1/decisions   send a decision (DecisionRequest -> Outcome; 409 when another came first)
//	POST   /v1/reconcile   reconcile the open decisions (Reconciled)
//	POST   /v1/notes       journal that a task left while being answered (NoteRequest)
//	POST   /v1/claims      claim a prompt (ClaimRequest -> Claim); DELETE releases it
//	GET    /v1/task        GetTask (?agent=&id=&history=&artifacts=1 -> TaskAnswer)
//	POST   /v1/cancel      CancelTask (CancelRequest -> TaskAnswer)
//	GET    /v1/capture     an agent's raw exchanges (?agent= -> Capture)
//	GET    /metrics        the hub's figures, Prometheus text format (metrics.go)
//
// and, without a token, for probes: GET /healthz (the process serves) and
// GET /readyz (the hub runs, its loop answers, its journal reads; 503 with
// the reason otherwise).
//
// Refusals are JSON with the reason in words: 401 without a known token,
// 403 for a role the operator lacks, 404 for an unknown agent or task,
// 409 for a decision on a prompt another decision won or that changed,
// 413 for a body larger than the endpoint takes, 429 past what one
// operator may hold (limits.go), 503 past the decision bodies' budget.
func (h *Hub) Handler() http.Handler {
	mux := http.NewServeMux()
	route := func(pattern string, f func(http.ResponseWriter, *http.Request, *Operator)) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			op := h.ops.authenticate(w, r)
			if op == nil {
				return
			}
			a, ok := h.enter(w, r, op, pattern)
			if !ok {
				return
			}
			defer h.leave(a)
			f(w, r, op)
		})
	}
	route("GET /v1/me", h.serveMe)
	route(routeFeed, h.serveFeed)
	route(routeDecisions, h.serveDecision)
	route("POST /v1/reconcile", h.serveReconcile)
	route("POST /v1/notes", h.serveNote)
	route("POST /v1/claims", h.serveClaim)
	route("DELETE /v1/claims", h.serveRelease)
	route("GET /v1/task", h.serveTask)
	route("POST /v1/cancel", h.serveCancel)
	route("GET /v1/capture", h.serveCapture)
	route("GET /metrics", h.serveMetrics)
	mux.HandleFunc("GET /healthz", h.serveHealthz)
	mux.HandleFunc("GET /readyz", h.serveReadyz)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such endpoint on an a2atop hub: "+r.Method+" "+r.URL.Path+" (the API is under /v1/)")
	})
	return h.logRequests(mux)
}

// serveMe is GET /v1/me.
func (h *Hub) serveMe(w http.ResponseWriter, _ *http.Request, op *Operator) {
	writeJSON(w, http.StatusOK, Me{Operator: op.Name, Approver: op.Name, Roles: op.Roles, Agents: h.o.Agents,
		Templates: h.o.Journal.Templates, ChainKeys: h.o.Fleet.ChainKeys, TerminalPerAgent: h.o.Fleet.WithDefaults().MaxTerminalPerAgent, Epoch: h.feed.epoch,
		Policies: h.o.Journal.Policies, Groups: op.Groups,
		JournalKey: h.journalKey(), Record: h.record()})
}

// logRequests logs each request's method, path, status and time; never
// a header (the token is in one) or a query's values.
func (h *Hub) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r)
		h.log.Debug("request", "method", r.Method, "path", r.URL.Path, "status", sw.status,
			"took", time.Since(start).Round(time.Millisecond).String(), "remote", r.RemoteAddr)
	})
}

// statusWriter records the status a handler wrote. It passes Flush on
// (the feed's SSE needs it) and unwraps for http.ResponseController.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// writeJSON writes v with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(encode(v), '\n'))
}

// writeError writes a refusal in words.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, ErrorBody{Error: msg})
}

// readJSON reads the request body (bounded by the route: see enter) into
// v, or writes a 400 (413 for a body too large) and returns false.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, tooLarge(tooBig.Limit))
			return false
		}
		writeError(w, http.StatusBadRequest, "the body is not the JSON this endpoint takes: "+err.Error())
		return false
	}
	return true
}
