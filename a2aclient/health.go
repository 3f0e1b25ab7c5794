package a2aclient

import (
	"strconv"
	"time"

	"a2atop/a2aclient/a2aerr"
	"a2atop/model"
)

// listingNoteLocked says why the agent cannot list tasks for us, or ""
// (also before its card was read: nothing is known yet).
func (w *watcher) listingNoteLocked() string {
	switch {
	case w.info == nil:
		return ""
	case !w.listing:
		return w.noListing
	case w.listDenied:
		return "these credentials cannot list tasks"
	}
	return ""
}

// setHealth records h (filling the listing and stream fields) and emits it.
func (w *watcher) setHealth(h model.HealthUpdate) {
	w.mu.Lock()
	h.Listing = w.listing && !w.listDenied && w.client != nil
	h.ListingNote = w.listingNoteLocked()
	h.Streams, h.StreamsShort = w.streams, w.streamsShort
	if w.listed.counted {
		h.TerminalTotal = w.listed.termTotal
	}
	h.Note = ""
	if w.listed.ignoresFilter {
		h.Note = noteIgnoresFilter
	}
	if n := w.c.cert.Note(); n != "" {
		h.Note = joinErr(n, h.Note)
	}
	h.Push = w.push.health
	if h.LastSuccess.IsZero() {
		h.LastSuccess = w.health.LastSuccess
	}
	w.health = h
	w.mu.Unlock()
	w.emit(model.Event{Kind: model.EventHealth, Health: &h})
}

// fail records a failed attempt and returns how long to back off.
func (w *watcher) fail(err error) time.Duration {
	w.mu.Lock()
	w.failures++
	w.mu.Unlock()
	d := w.backoff(away(err))
	state := model.HealthBackoff
	switch c := a2aerr.Classify(err); {
	case c.Network():
		state = model.HealthUnreachable
	case c.Auth():
		state = model.HealthUnauthorized
	}
	msg := Describe(err)
	if errorsIsListDenied(err) {
		msg = "these credentials cannot list tasks: " + msg
	}
	w.log.Warn("agent attempt failed", "err", msg, "retry_in", d)
	w.setHealth(model.HealthUpdate{State: state, Err: msg, NextRetry: time.Now().Add(d)})
	return d
}

// succeed records a good round.
func (w *watcher) succeed() {
	w.mu.Lock()
	w.failures = 0
	state := model.HealthPolling
	if w.listing && !w.listDenied {
		state = model.HealthSweeping
	}
	if w.streams > 0 {
		state = model.HealthStreaming
	}
	msg := ""
	if w.streamErr != "" && time.Since(w.streamErrAt) < time.Minute {
		msg = w.streamErr
	}
	if w.openCapped {
		msg = joinErr(tooManyOpen(w.tasks.open), msg)
	}
	w.mu.Unlock()
	w.setHealth(model.HealthUpdate{State: state, Err: msg, LastSuccess: time.Now()})
}

// noteStreamError keeps a stream failure visible on the agent's row for a
// minute (too large, protocol error, credentials refused for streams),
// without taking the agent down: sweeps and polls still keep its tasks
// fresh, so the state stays up (an unauthorized state would mark them
// stale) and the words say what to fix.
func (w *watcher) noteStreamError(err error) {
	switch c := a2aerr.Classify(err); {
	case c.Network(), c == a2aerr.Canceled, c == a2aerr.Cut, c == a2aerr.Version,
		c == a2aerr.CardNotFound, c == a2aerr.NotACard:
		// Not the stream's own fault: the round's next call meets it too
		// and the agent's row says so then (or the stream was ours to end).
		return
	case c.Auth():
		w.log.Warn("stream refused for our credentials", "err", Describe(err))
	}
	w.mu.Lock()
	w.streamErr, w.streamErrAt = "stream: "+Describe(err), time.Now()
	h := w.health
	w.mu.Unlock()
	if h.State.Up() {
		h.Err = "stream: " + Describe(err)
		w.setHealth(h)
	}
}

// tooManyOpen is the row's words for an agent past MaxOpenTasks.
func tooManyOpen(kept int) string {
	return "too many open tasks: " + thousands(kept) + " kept (max_open_tasks)"
}

func joinErr(a, b string) string {
	if b == "" {
		return a
	}
	return a + "; " + b
}

// thousands writes n with commas: 10,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
