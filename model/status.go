package model

import (
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// replaceSnapshot makes s the task's snapshot, within the caps. A
// snapshot without artifacts or history (ListTasks without
// includeArtifacts, historyLength 0) keeps the ones we hold: a task never
// loses artifacts, it only stops sending them.
func (f *Fleet) replaceSnapshot(t *Task, s *a2a.Task, ev *Event) {
	t.fp = fingerprint(s)
	old := t.Snapshot
	keepArts := old != nil && len(s.Artifacts) == 0 && len(old.Artifacts) > 0
	keepHist := old != nil && len(s.History) == 0 && len(old.History) > 0
	oldHint := t.Hint
	art0 := t.artBytes
	if NormalizeState(s.Status.State) == a2a.TaskStateCompleted {
		t.Hint = hintOf(s.Artifacts) // before the caps cut anything
	} else {
		t.Hint = ""
	}
	if keepHist {
		s.History = old.History
	} else {
		t.Truncated = false
		f.capHistory(t, s)
	}
	if keepArts {
		s.Artifacts = old.Artifacts
		if t.Hint == "" && NormalizeState(s.Status.State) == a2a.TaskStateCompleted {
			if t.Hint = hintOf(s.Artifacts); t.Hint == "" {
				t.Hint = oldHint // the summary may have been cut by the cap
			}
		}
	} else {
		t.artBytes = f.capArtifacts(t, s)
		t.Partial = nil
	}
	t.Snapshot = s
	t.hasCtx = s.ContextID != ""
	t.histRefs = f.historyRefs(t, s.History)
	t.metaRefs = f.chainKeyIn(t, s.Metadata)
	prevUpdated := t.Updated
	f.setStatus(t, &s.Status, ev)
	f.accountArtifacts(t, t.artBytes-art0)
	f.account(t, statusSize(t, s.Status.Message), contentSize(s))
	if t.heapIdx >= 0 && !t.Updated.Equal(prevUpdated) {
		a := t.agent
		a.term.fix(int(t.heapIdx))
	}
	f.setRefs(t, t.histRefs || t.metaRefs || f.msgRefs(t, s.Status.Message))
	t.Source = ev.Source
	f.changed(t)
}

// setStatus derives State, Class, Updated and Text from st.
func (f *Fleet) setStatus(t *Task, st *a2a.TaskStatus, ev *Event) {
	state := NormalizeState(st.State)
	class := ClassOf(state)
	if class != t.Class {
		f.setClass(t, class)
		if class == ClassTerminal {
			t.Partial = nil
		}
	}
	from := t.State
	t.State = state
	t.hasTS = st.Timestamp != nil
	// Since is zero only while Updated is (Since is the first non-zero
	// Updated), so it is read only then: it is on a colder cache line.
	setSince := t.Updated.IsZero() && t.Since.IsZero()
	switch {
	case st.Timestamp != nil:
		t.Updated = *st.Timestamp
	case !ev.At.IsZero():
		t.Updated = ev.At
	}
	if setSince {
		t.Since = t.Updated
	}
	if from != state && from != "" {
		f.noteState(t, from, state, t.Updated)
	}
	t.Text = textOf(st.Message)
	if class == ClassTerminal && t.heapIdx < 0 {
		f.addTerminal(t)
	}
}

// older reports whether a status stamped ts is older than the one held.
// Without both timestamps there is no order to keep: newest arrival wins.
func (f *Fleet) older(t *Task, ts *time.Time) bool {
	return ts != nil && t.hasTS && ts.Before(t.Updated)
}

// newer reports whether a status stamped ts is newer than the one held,
// so it cannot be a repeat.
func (f *Fleet) newer(t *Task, ts *time.Time) bool {
	return ts != nil && t.hasTS && ts.After(t.Updated)
}

// sameStatus reports whether b repeats a: same state, same timestamp,
// same status message.
func sameStatus(a, b *a2a.TaskStatus) bool {
	if a.State != b.State {
		return false
	}
	switch {
	case a.Timestamp == nil && b.Timestamp == nil:
	case a.Timestamp == nil || b.Timestamp == nil:
		return false
	case !a.Timestamp.Equal(*b.Timestamp):
		return false
	}
	switch {
	case a.Message == nil && b.Message == nil:
		return true
	case a.Message == nil || b.Message == nil:
		return false
	}
	return a.Message == b.Message || a.Message.ID == b.Message.ID && a.Message.ID != ""
}
