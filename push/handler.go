package push

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// ServeHTTP receives one delivery at Path + AGENT (see the package
// documentation for what it accepts). It answers 200 to what it took,
// and 401, 404, 405, 413, 400 or 503 to what it refused, counted on the
// agent's row.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	name, ok := strings.CutPrefix(req.URL.Path, Path)
	r.mu.Lock()
	a := r.agents[name]
	if !ok || a == nil {
		r.unknown++
		n := r.unknown
		r.mu.Unlock()
		if n == 1 || n%100 == 0 {
			r.log.Warn("push: a POST for no configured agent refused", "refused", n)
		}
		http.Error(w, "no such webhook", http.StatusNotFound)
		return
	}
	r.mu.Unlock()
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		r.refuse(w, name, http.StatusMethodNotAllowed, "a "+strconv.Quote(clip(req.Method, 16))+" request, not POST")
		return
	}
	token := tokenOf(req.Header)
	if token == "" {
		r.refuse(w, name, http.StatusUnauthorized, "no token")
		return
	}
	r.mu.Lock()
	t, _ := r.findLocked(name, token)
	var task a2a.TaskID
	if t != nil {
		task = t.task
	}
	r.mu.Unlock()
	if t == nil {
		r.refuse(w, name, http.StatusUnauthorized, "a token a2atop did not issue to this agent (or one retired)")
		return
	}
	select {
	case r.busy <- struct{}{}:
		defer func() { <-r.busy }()
	default:
		w.Header().Set("Retry-After", "1")
		r.refuse(w, name, http.StatusServiceUnavailable, "too many deliveries at once")
		return
	}
	ev, status, why := r.read(w, req)
	if why != "" {
		r.refuse(w, name, status, why)
		return
	}
	if id := taskOf(ev); id != task {
		r.mu.Lock()
		ours := r.agents[name].tasks[id] > 0
		r.mu.Unlock()
		if ours {
			r.refuse(w, name, http.StatusUnauthorized, "the token of another task's config (task "+clip(string(id), 64)+")")
		} else {
			r.refuse(w, name, http.StatusNotFound, "task "+strconv.Quote(clip(string(id), 64))+" is not one a2atop asked this agent to push")
		}
		return
	}
	r.accept(name)
	if _, msg := ev.(*a2a.Message); !msg {
		r.o.Sink.Deliver(name, ev)
	}
	w.WriteHeader(http.StatusOK)
}

// read reads and decodes the body: one StreamResponse of at most MaxBody
// bytes. On failure it returns the status and why.
func (r *Receiver) read(w http.ResponseWriter, req *http.Request) (a2a.Event, int, string) {
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(readTimeout)) // the wall clock: a deadline, not a record
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, r.o.MaxBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, http.StatusRequestEntityTooLarge, "a body over " + strconv.FormatInt(r.o.MaxBody, 10) + " bytes"
	case err != nil:
		return nil, http.StatusBadRequest, "the body could not be read"
	}
	var sr a2a.StreamResponse
	if err := json.Unmarshal(body, &sr); err != nil || sr.Event == nil {
		return nil, http.StatusBadRequest, "a body that is not one A2A StreamResponse"
	}
	if taskOf(sr.Event) == "" {
		return nil, http.StatusBadRequest, "a delivery that names no task"
	}
	return sr.Event, 0, ""
}

// refuse answers status and counts the refusal on agent's row.
func (r *Receiver) refuse(w http.ResponseWriter, agent string, status int, why string) {
	r.mu.Lock()
	a := r.agents[agent]
	a.h.Rejected++
	a.h.LastRejected = strconv.Itoa(status) + ": " + why
	n := a.h.Rejected
	r.changedLocked(a)
	r.mu.Unlock()
	if n == 1 || n%100 == 0 {
		r.log.Warn("push: a delivery refused", "agent", agent, "status", status, "why", why, "refused", n)
	} else {
		r.log.Debug("push: a delivery refused", "agent", agent, "status", status, "why", why)
	}
	http.Error(w, http.StatusText(status), status)
}

// accept counts one delivery taken on agent's row.
func (r *Receiver) accept(agent string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a := r.agents[agent]
	a.h.Delivered++
	a.h.LastDelivery = r.o.Now()
	r.changedLocked(a)
}

// tokenOf is the token a delivery carries: the Bearer credentials of the
// config's authentication (what the JavaScript SDK sends when both are
// set), else the config's token in A2A-Notification-Token (the Go SDK)
// or X-A2A-Notification-Token (the JavaScript SDK and A2A 0.3).
func tokenOf(h http.Header) string {
	if v := h.Get("Authorization"); len(v) > 7 && strings.EqualFold(v[:7], "bearer ") {
		return strings.TrimSpace(v[7:])
	}
	if v := h.Get("A2A-Notification-Token"); v != "" {
		return v
	}
	return h.Get("X-A2A-Notification-Token")
}

// taskOf is the task a delivery is about.
func taskOf(ev a2a.Event) a2a.TaskID {
	switch e := ev.(type) {
	case *a2a.Task:
		return e.ID
	case *a2a.TaskStatusUpdateEvent:
		return e.TaskID
	case *a2a.TaskArtifactUpdateEvent:
		return e.TaskID
	case *a2a.Message:
		return e.TaskID
	}
	return ""
}

// clip cuts s to at most n bytes (the row's words are sanitized where
// they are shown).
func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
