package model

import (
	"container/heap"
	"hash/maphash"
	"math"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// ApplyResult says what one Apply call changed.
type ApplyResult struct {
	// Changed is true when anything visible changed (Version moved).
	Changed bool
	// Entered lists the tasks that joined the interrupted set in this
	// batch (the UI rings the bell); Left lists those that left it (the
	// inbox drops them). A task that entered and left within one batch
	// is in neither. Nil when empty.
	Entered, Left []TaskKey
	// Violations counts the events refused because they moved a task
	// out of the terminal state it had reached (see Apply).
	Violations int
	// Evicted counts the terminal tasks dropped by MaxTerminalPerAgent.
	Evicted int
}

// Apply applies a batch of events in order and reports what changed.
// It is idempotent and order-safe:
//   - a terminal task is final: an event that would change its state,
//     and any artifact event, is ignored (a snapshot with the same
//     terminal state may still fill in artifacts and history). Whatever
//     way it came by, such an event is stale (what one way says late
//     after another told of the end) unless it is a state stamped later
//     than the end: only that is counted as a violation of the task and
//     its agent;
//   - a snapshot or status older, by status timestamp, than the one held
//     is ignored; a repeated snapshot or status is a no-op;
//   - an event for a task we do not know creates it (and its agent);
//   - health events update the agent and mark its tasks Stale while it is
//     backing off, unreachable or unauthorized (cleared when it is up);
//     they never change a task's data;
//   - EventGone marks a task Gone: it stays on screen, in the terminal
//     pane, with its last state, until an event for it brings it back.
//
// The pointers inside the events are owned by the Fleet afterwards.
func (f *Fleet) Apply(batch []Event) ApplyResult {
	f.batch++
	f.res = ApplyResult{}
	v0 := f.version
	for i := range batch {
		f.apply(&batch[i])
	}
	f.evictOverfull()
	f.trimOverBudget()
	f.syncUnqueried()
	res := f.res
	for i, t := range f.touched {
		in := t.Class == ClassInterrupted && !t.removed
		was := t.start == ClassInterrupted
		switch {
		case in && !was:
			res.Entered = append(res.Entered, t.Key)
		case was && !in:
			res.Left = append(res.Left, t.Key)
		}
		f.touched[i] = nil
	}
	f.touched = f.touched[:0]
	res.Changed = f.version != v0
	f.res = ApplyResult{}
	return res
}

func (f *Fleet) apply(ev *Event) {
	switch ev.Kind {
	case EventTask:
		if ev.Task != nil {
			f.applySnapshot(ev)
		}
	case EventStatus:
		if ev.Status != nil {
			f.applyStatus(ev)
		}
	case EventArtifact:
		if ev.Artifact != nil && ev.Artifact.Artifact != nil {
			f.applyArtifact(ev)
		}
	case EventHealth:
		if ev.Health != nil {
			f.applyHealth(f.agent(ev.Agent), *ev.Health)
		}
	case EventAgent:
		if ev.Info != nil {
			f.applyInfo(f.agent(ev.Agent), *ev.Info)
		}
	case EventGone:
		if ev.Task != nil {
			f.applyGone(ev)
		}
	}
}

// heard records that an event for t arrived, even one that changes
// nothing: LastHeard moves (without a Version change) and Gone clears.
func (f *Fleet) heard(t *Task, ev *Event) {
	if !ev.At.IsZero() {
		t.LastHeard = ev.At
	}
	if t.Gone {
		t.Gone = false
		f.setClass(t, ClassOf(t.State)) // back in the pane of its state
		if t.Class != ClassTerminal && t.heapIdx >= 0 {
			heap.Remove(&t.agent.term, int(t.heapIdx)) // back: no longer one to evict
		}
		f.version++
		f.changes.add(t)
	}
}

func (f *Fleet) applySnapshot(ev *Event) {
	s := ev.Task
	t := f.find(ev.Agent, s.ID)
	if t == nil {
		t = f.newTask(f.agent(ev.Agent), s.ID, ev)
		f.replaceSnapshot(t, s, ev)
		return
	}
	f.heard(t, ev)
	if t.Class == ClassTerminal && NormalizeState(s.Status.State) != t.State {
		f.afterEnd(t, s.Status.Timestamp)
		return
	}
	if f.older(t, s.Status.Timestamp) || (t.fp != 0 && t.fp == fingerprint(s)) {
		return
	}
	f.replaceSnapshot(t, s, ev)
}

func (f *Fleet) applyStatus(ev *Event) {
	se := ev.Status
	t := f.find(ev.Agent, se.TaskID)
	if t == nil {
		a := f.agent(ev.Agent)
		t = f.newTask(a, se.TaskID, ev)
		s := &a2a.Task{ID: se.TaskID, ContextID: se.ContextID, Status: se.Status}
		f.replaceSnapshot(t, s, ev)
		return
	}
	f.heard(t, ev)
	if t.Class == ClassTerminal {
		if NormalizeState(se.Status.State) != t.State {
			f.afterEnd(t, se.Status.Timestamp)
		}
		return
	}
	if f.older(t, se.Status.Timestamp) {
		return
	}
	// A newer timestamp cannot be a repeat; only then is the held status
	// (on the snapshot, another cache line) read.
	st := &se.Status
	if !f.newer(t, st.Timestamp) && sameStatus(&t.Snapshot.Status, st) {
		return
	}
	// The snapshot is only written here: the fields this event changes
	// are derived from st, and hasCtx stands for Snapshot.ContextID != "".
	t.Snapshot.Status = *st
	if !t.hasCtx && se.ContextID != "" {
		t.Snapshot.ContextID = se.ContextID
		t.hasCtx = true
	}
	t.fp = 0
	f.setStatus(t, st, ev)
	f.account(t, statusSize(t, st.Message), int(t.restBytes))
	if t.State == a2a.TaskStateCompleted {
		t.Hint = hintOf(t.Snapshot.Artifacts)
	}
	f.setRefs(t, t.histRefs || t.metaRefs || f.msgRefs(t, st.Message))
	t.Source = ev.Source
	f.changed(t)
}

func (f *Fleet) applyArtifact(ev *Event) {
	ae := ev.Artifact
	t := f.find(ev.Agent, ae.TaskID)
	if t == nil {
		t = f.newTask(f.agent(ev.Agent), ae.TaskID, ev)
		s := &a2a.Task{ID: ae.TaskID, ContextID: ae.ContextID}
		f.replaceSnapshot(t, s, ev)
	} else {
		f.heard(t, ev)
	}
	if t.Class == ClassTerminal {
		return // stale: a chunk has no timestamp to tell it from one sent before the end
	}
	art0 := t.artBytes
	if !f.mergeArtifact(t, ae) {
		return
	}
	f.accountArtifacts(t, t.artBytes-art0)
	f.noteChunk(t, ae, ev.At)
	if t.State == a2a.TaskStateCompleted {
		t.Hint = hintOf(t.Snapshot.Artifacts)
	}
	t.fp = 0
	t.Source = ev.Source
	f.changed(t)
}

// newTask creates t in a with class Unknown; the caller sets its status.
func (f *Fleet) newTask(a *Agent, id a2a.TaskID, ev *Event) *Task {
	f.seq++
	t := &Task{
		Key:       TaskKey{Agent: a.Name, ID: id},
		FirstSeen: ev.At,
		LastHeard: ev.At,
		Stale:     a.stale(),
		agent:     a,
		seq:       f.seq,
		heapIdx:   -1,
	}
	if n := len(f.free); n > 0 {
		t.slot = f.free[n-1]
		f.free = f.free[:n-1]
		f.slots[t.slot] = t
	} else {
		t.slot = uint32(len(f.slots))
		f.slots = append(f.slots, t)
	}
	f.touch(t)
	h := f.idHash(id)
	t.twin = f.byID[h]
	f.byID[h] = t
	t.heldIdx = int32(len(a.held))
	a.held = append(a.held, t)
	a.Counts[ClassUnknown]++
	f.ntasks++
	return t
}

// touch remembers t's class at the start of the batch, for Entered/Left.
func (f *Fleet) touch(t *Task) {
	if t.mark == f.batch {
		return
	}
	t.mark = f.batch
	t.start = t.Class
	f.touched = append(f.touched, t)
}

// changed records that t's data changed: Version moves and the pane
// indexes revisit t at the next query.
func (f *Fleet) changed(t *Task) {
	f.version++
	t.Rev++
	f.changes.add(t)
	if !t.dirty {
		t.dirty = true
		f.dirty = append(f.dirty, t)
	}
}

// afterEnd handles a snapshot or status in another state than the
// terminal one t holds. A task reaches the fleet by several ways at once
// (a stream, sweeps, polls, push), and one of them may tell late what it
// saw before another told of the end: what is stamped no later than the
// end, or not stamped at all, is stale and ignored. Only a state stamped
// later than the end (or stamped, when the end was not) is a transition
// out of the terminal state, the agent's protocol violation.
func (f *Fleet) afterEnd(t *Task, ts *time.Time) {
	if ts != nil && (!t.hasTS || ts.After(t.Updated)) {
		f.violation(t)
	}
}

func (f *Fleet) violation(t *Task) {
	if t.Violations < math.MaxInt32 {
		t.Violations++
	}
	t.agent.Violations++
	f.res.Violations++
	f.version++
}

// idHash is the key of a task id in Fleet.byID.
func (f *Fleet) idHash(id a2a.TaskID) uint64 {
	return maphash.String(f.seed, string(id))
}

// find returns the agent's task with this id, or nil. The map is keyed
// by a hash so that a lookup compares integers in the map's own memory;
// the key is checked on the task, which is read anyway.
func (f *Fleet) find(agent string, id a2a.TaskID) *Task {
	t := f.byID[f.idHash(id)]
	for t != nil && (t.Key.ID != id || t.Key.Agent != agent) {
		t = t.twin
	}
	return t
}
