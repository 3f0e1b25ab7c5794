package a2aclient

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient/credential"
	"a2atop/a2aclient/edge"
	"a2atop/model"
)

// ensureStreams opens SubscribeToTask streams for known non-terminal
// tasks, as many as the agent's share of the fleet's streams allows
// (stream_budget.go), and ends those past it. A task whose last
// subscribe ended without it being streamable (see noStream) is not
// retried until its state or timestamp changes.
func (w *watcher) ensureStreams(ctx context.Context) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := time.Now()
	w.closeStuckStreams(now)
	if !w.streamOK || w.client == nil {
		w.budget.share(w, 0)
		w.streamsShort = 0
		return
	}
	var cands []*memo
	for _, m := range w.tasks.m {
		if m.streaming && !m.shed || !m.streaming && m.seen && model.ClassOf(m.state) != model.ClassTerminal && m.noStream != m.key() {
			cands = append(cands, m)
		}
	}
	want := min(len(cands), w.o.MaxStreams)
	allow := w.budget.share(w, want)
	w.streamsShort = want - allow
	if allow < len(cands) {
		slices.SortFunc(cands, streamRank(now)) // which have the streams matters only when not all can
	}
	for i, m := range cands {
		switch {
		case i >= allow && m.streaming:
			w.shed(m)
		case i < allow && !m.streaming && w.streams < w.o.MaxStreams:
			m.streaming = true
			w.streams++
			w.wg.Add(1)
			go w.stream(ctx, m.id)
		}
	}
}

// shed ends m's stream to give its place to another task's: the stream's
// goroutine returns without reconciling, and sweeps follow the task.
// Called with w.mu held.
func (w *watcher) shed(m *memo) {
	m.shed = true
	if sub := m.open; sub != nil && sub.why == "" {
		sub.why = "its place went to another task's stream (the fleet's stream budget, max_streams_total)"
		sub.stop()
	}
}

// sheddingStream reports whether id's stream was shed, and clears the mark.
func (w *watcher) sheddingStream(id a2a.TaskID) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	m := w.tasks.get(id)
	if m == nil || !m.shed {
		return false
	}
	m.shed = false
	return true
}

// stream follows one task until it ends, reconciling with GetTask each
// time the stream closes or fails (a closed stream says nothing about the
// state: spec §3.1.6 vs the streaming topic page).
func (w *watcher) stream(ctx context.Context, id a2a.TaskID) {
	defer w.wg.Done()
	defer func() {
		w.mu.Lock()
		if m := w.tasks.get(id); m != nil {
			m.streaming, m.shed = false, false
		}
		w.streams--
		w.mu.Unlock()
	}()
	failures := 0
	for ctx.Err() == nil {
		if w.sheddingStream(id) {
			return
		}
		cl := w.getClient()
		if cl == nil {
			return
		}
		sctx, stop := context.WithCancel(credential.Idempotent(ctx))
		sctx, pr := edge.WithProbe(sctx)
		sub := w.opened(id, stop)
		got := 0
		var serr error
		w.calls.add("SubscribeToTask")
		for ev, err := range cl.SubscribeToTask(sctx, &a2a.SubscribeToTaskRequest{ID: id, Tenant: w.o.Tenant}) {
			if err != nil {
				serr = err
				break
			}
			got++
			w.heard(id, sub, ev)
			w.onStreamEvent(ev)
		}
		stuck := w.closed(id, sub)
		stop()
		if ctx.Err() != nil || w.sheddingStream(id) {
			return
		}
		if stuck != "" {
			// We closed it: the server would not (see streamwatch.go).
			w.log.Debug("stream closed by us", "task", id, "why", stuck)
			serr = nil
		}
		recycled := errors.Is(serr, edge.ErrStreamRecycled)
		if recycled {
			serr = nil // ours too, after a big event (edge/stream_recycle.go)
		}
		if serr != nil {
			serr = w.wrap("SubscribeToTask", "", pr, serr)
			w.log.Debug("stream ended", "task", id, "err", Describe(serr))
		}
		t, err := w.getTask(ctx, id, 0)
		if err != nil {
			if errors.Is(err, a2a.ErrTaskNotFound) {
				w.notFound(id) // the gone event says it all
			} else if serr != nil {
				w.noteStreamError(serr)
			}
			return // sweeps and polls carry on and reopen the stream
		}
		if serr != nil && !normalRefusal(serr, t) {
			w.noteStreamError(serr)
		}
		w.observe(t, model.SourcePoll, model.ClassOf(t.Status.State) == model.ClassTerminal)
		switch model.ClassOf(t.Status.State) {
		case model.ClassTerminal:
			return
		case model.ClassInterrupted:
			w.markNoStream(id)
			return
		}
		// Still active, and refused with nothing received (a Go server's
		// "no active execution", no_active_execution.go): nobody runs it
		// now; or ended by us after a big event: leave it to sweeps until
		// its state or timestamp changes.
		if got == 0 && serr != nil || recycled {
			w.markNoStream(id)
			return
		}
		if got > 1 { // more than the opening snapshot: the stream was doing work
			failures = 0
		}
		failures++
		d := min(w.o.SweepInterval/4<<min(failures-1, 10), maxBackoff)
		if !sleepCtx(ctx, jitter(max(d, 10*time.Millisecond))) {
			return
		}
	}
}

func (w *watcher) markNoStream(id a2a.TaskID) {
	w.mu.Lock()
	if m := w.tasks.get(id); m != nil {
		m.noStream = m.key()
	}
	w.mu.Unlock()
}

// onStreamEvent turns one stream event into a model event.
func (w *watcher) onStreamEvent(ev a2a.Event) {
	switch e := ev.(type) {
	case *a2a.Task:
		w.observe(e, model.SourceStream, true)
	case *a2a.TaskStatusUpdateEvent:
		w.mu.Lock()
		if m := w.tasks.get(e.TaskID); m != nil {
			ts, now := m.ts, time.Now()
			if e.Status.Timestamp != nil {
				ts = *e.Status.Timestamp
			}
			for _, id := range w.tasks.set(m, model.NormalizeState(e.Status.State), ts, now) {
				delete(w.dirty, id)
			}
			m.heard = now
		}
		w.mu.Unlock()
		if w.refs != nil && e.Status.Message != nil {
			w.refs(&a2a.Task{ID: e.TaskID, Status: e.Status})
		}
		w.emit(model.Event{Kind: model.EventStatus, Source: model.SourceStream, Status: e})
	case *a2a.TaskArtifactUpdateEvent:
		w.emit(model.Event{Kind: model.EventArtifact, Source: model.SourceStream, Artifact: e})
	}
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
