package a2aclient

import (
	"context"
	"slices"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// maxDirty bounds the task ids a watcher remembers as "events dropped",
// each fetched again with GetTask; past it the recovery is a full resweep
// alone (which lists the terminal states again too), cheaper for the
// agent than thousands of GetTasks.
const maxDirty = 256

// emitter is the Manager's bounded event channel.
type emitter struct {
	ch   chan model.Event
	wait time.Duration
}

// send delivers ev, waiting at most e.wait for room.
func (e *emitter) send(ctx context.Context, ev model.Event) bool {
	select {
	case e.ch <- ev:
		return true
	default:
	}
	t := time.NewTimer(e.wait)
	defer t.Stop()
	select {
	case e.ch <- ev:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

// room reports whether the channel has drained to half its capacity.
func (e *emitter) room() bool { return len(e.ch) <= cap(e.ch)/2 }

// emit sends ev for this watcher. When the channel stays full the
// watcher stops sending task events, remembers what it dropped, and
// recovers with a resweep once the consumer catches up: nothing is lost
// silently and a slow UI never stalls a stream for long.
func (w *watcher) emit(ev model.Event) {
	if id := eventTaskID(ev); id != "" && !w.sendable(id) {
		return // a task a2atop cannot ask after is left out (edge/task_id_segment.go)
	}
	ev.Agent = w.o.Name
	if p := w.push.p; p != nil {
		p.note(&ev)
	}
	if ev.At.IsZero() {
		ev.At = time.Now()
	}
	if !w.overflow.Load() && w.em.send(w.runCtx(), ev) {
		return
	}
	if !w.overflow.Swap(true) {
		select {
		case w.overflowed <- struct{}{}:
		default:
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch ev.Kind {
	case model.EventHealth:
		w.pendingHealth = ev.Health
	case model.EventAgent:
		w.pendingInfo = ev.Info
	default:
		id := eventTaskID(ev)
		if id == "" || len(w.dirty) >= maxDirty {
			w.dirtyAll = true
			return
		}
		w.dirty[id] = struct{}{}
	}
}

func eventTaskID(ev model.Event) a2a.TaskID {
	switch {
	case ev.Task != nil:
		return ev.Task.ID
	case ev.Status != nil:
		return ev.Status.TaskID
	case ev.Artifact != nil:
		return ev.Artifact.TaskID
	}
	return ""
}

// recoverOverflow runs when the channel has room again: it re-sends the
// pending agent and health events and returns the tasks to refetch. The
// caller then does a full sweep (or a full poll).
func (w *watcher) recoverOverflow() (ids []a2a.TaskID, ok bool) {
	if !w.overflow.Load() || !w.em.room() {
		return nil, false
	}
	w.mu.Lock()
	info, health := w.pendingInfo, w.pendingHealth
	w.pendingInfo, w.pendingHealth = nil, nil
	for id := range w.dirty {
		ids = append(ids, id)
	}
	clear(w.dirty)
	if w.dirtyAll {
		w.listed.terminalOwed = true // what was dropped may be terminal: list those states again
	}
	w.dirtyAll = false
	w.forceFull = true
	w.epoch++ // the full sweep reports every task again, dropped or not
	w.mu.Unlock()
	w.overflow.Store(false)
	if info != nil {
		w.emit(model.Event{Kind: model.EventAgent, Info: info})
	}
	if health != nil {
		w.emit(model.Event{Kind: model.EventHealth, Health: health})
	}
	return ids, true
}

// ownCopy returns a copy of t for Events when the caller also gets t
// (Get, Reply, Cancel): the consumer keeps and updates what it receives
// (model.Fleet replaces the status, appends artifacts, caps the history)
// while the caller reads what it got. The Task, its History and Artifacts
// slices and each Artifact are copied; parts, messages and metadata are
// shared, as nobody changes them in place. Artifact parts are clipped so
// an append by the consumer never writes into the caller's array. Sweeps
// and streams hand their objects to Events alone and need no copy.
func ownCopy(t *a2a.Task) *a2a.Task {
	if t == nil {
		return nil
	}
	c := *t
	c.History = slices.Clone(t.History)
	if t.Artifacts != nil {
		c.Artifacts = make([]*a2a.Artifact, len(t.Artifacts))
		for i, a := range t.Artifacts {
			if a == nil {
				continue
			}
			ac := *a
			ac.Parts = slices.Clip(a.Parts)
			c.Artifacts[i] = &ac
		}
	}
	return &c
}
