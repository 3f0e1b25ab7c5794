package model

import (
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// The trail of a task: the states it went through as the fleet saw
// them, and how its streamed artifacts came in. It is kept beside the
// Task (a Task is at its 320-byte size class), only for tasks that
// changed state or streamed an artifact, in a fixed array each: the
// last maxMarks changes and maxStreams artifacts. A status event that
// keeps the state costs one comparison; a change, one map lookup (and,
// the first time, one allocation).

// maxMarks bounds the state changes kept per task (the newest).
const maxMarks = 8

// maxStreams bounds the streamed artifacts counted per task.
const maxStreams = 4

// StateMark is a state a task entered and when: the status timestamp,
// or when the fleet heard the status if the agent gave none.
type StateMark struct {
	State a2a.TaskState
	At    time.Time
}

// Stream is how an artifact came in: its chunks (the artifact updates
// that set it or appended to it; one for an artifact sent whole), their
// bytes (text and raw parts, data
// parts by estimate), when the first and the last came, and whether the
// last said it was the last.
type Stream struct {
	Artifact    a2a.ArtifactID
	Chunks      int
	Bytes       int
	First, Last time.Time
	Done        bool
}

// trail is one task's states and streams: 224 bytes, and its streams
// apart, for the few tasks that stream.
type trail struct {
	first   a2a.TaskState // the state before the first change
	marks   [maxMarks]mark
	n       int // changes seen; marks holds the last min(n, maxMarks), a ring
	streams *[maxStreams]Stream
	ns      int
}

// mark is a StateMark as kept: the time in Unix nanoseconds.
type mark struct {
	state a2a.TaskState
	at    int64
}

// noteState records that t changed from state from to state at at.
func (f *Fleet) noteState(t *Task, from, state a2a.TaskState, at time.Time) {
	tr := f.trailOf(t)
	if tr.n == 0 {
		tr.first = from
	}
	tr.marks[tr.n%maxMarks] = mark{state: state, at: at.UnixNano()}
	tr.n++
}

// noteChunk records an artifact update of t that changed its content.
// An update that does not append starts the artifact's count again.
func (f *Fleet) noteChunk(t *Task, ae *a2a.TaskArtifactUpdateEvent, at time.Time) {
	tr := f.trailOf(t)
	if tr.streams == nil {
		tr.streams = new([maxStreams]Stream)
	}
	var s *Stream
	for i := range tr.streams[:tr.ns] {
		if tr.streams[i].Artifact == ae.Artifact.ID {
			s = &tr.streams[i]
		}
	}
	if s == nil {
		if tr.ns == maxStreams {
			return
		}
		tr.streams[tr.ns] = Stream{Artifact: ae.Artifact.ID, First: at}
		s = &tr.streams[tr.ns]
		tr.ns++
	}
	if !ae.Append {
		*s = Stream{Artifact: s.Artifact, First: at}
	}
	s.Chunks++
	for _, p := range ae.Artifact.Parts {
		s.Bytes += partSize(p)
	}
	s.Last, s.Done = at, ae.LastChunk
}

func (f *Fleet) trailOf(t *Task) *trail {
	if f.trails == nil {
		f.trails = make(map[*Task]*trail)
	}
	tr := f.trails[t]
	if tr == nil {
		tr = &trail{}
		f.trails[t] = tr
	}
	return tr
}

// Timeline returns the states task k went through as the fleet saw
// them, oldest first: the state it was first seen in (at Task.Since),
// then each change with its time. When more changes came than are kept,
// dropped reports how many of the oldest are missing (the first mark is
// then the oldest kept). nil for a task the fleet does not hold.
func (f *Fleet) Timeline(k TaskKey) (marks []StateMark, dropped int) {
	t := f.Task(k)
	if t == nil {
		return nil, 0
	}
	tr := f.trails[t]
	if tr == nil || tr.n == 0 {
		return []StateMark{{State: t.State, At: t.Since}}, 0
	}
	if tr.n <= maxMarks {
		marks = append(marks, StateMark{State: tr.first, At: t.Since})
	} else {
		dropped = tr.n - maxMarks + 1 // the first state too
	}
	for i := max(tr.n-maxMarks, 0); i < tr.n; i++ {
		m := tr.marks[i%maxMarks]
		marks = append(marks, StateMark{State: m.state, At: time.Unix(0, m.at).UTC()})
	}
	return marks, dropped
}

// Streams returns how task k's streamed artifacts came in, in the order
// they started (at most maxStreams). The slice is the caller's.
func (f *Fleet) Streams(k TaskKey) []Stream {
	t := f.Task(k)
	if t == nil || f.trails[t] == nil || f.trails[t].streams == nil {
		return nil
	}
	tr := f.trails[t]
	return append([]Stream(nil), tr.streams[:tr.ns]...)
}
