package model

import (
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

func TestTimelineAndStreams(t *testing.T) {
	f := NewFleet(Options{})
	k := TaskKey{Agent: "a", ID: "t"}
	f.Apply([]Event{status("a", "t", a2a.TaskStateSubmitted, 1, nil)})
	if m, d := f.Timeline(k); len(m) != 1 || m[0].State != a2a.TaskStateSubmitted || d != 0 {
		t.Fatalf("a task that never changed: %v %d", m, d)
	}
	f.Apply([]Event{status("a", "t", a2a.TaskStateWorking, 2, nil), status("a", "t", a2a.TaskStateWorking, 3, nil),
		status("a", "t", a2a.TaskStateInputRequired, 4, nil), status("a", "t", a2a.TaskStateWorking, 5, nil)})
	m, _ := f.Timeline(k)
	want := []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateWorking, a2a.TaskStateInputRequired, a2a.TaskStateWorking}
	if len(m) != len(want) {
		t.Fatalf("timeline %v", m)
	}
	for i := range want {
		if m[i].State != want[i] {
			t.Fatalf("timeline %v, want %v", m, want)
		}
	}
	if !m[2].At.After(m[1].At) {
		t.Fatalf("times out of order: %v", m)
	}
	for i := range 20 { // more changes than kept
		s := a2a.TaskStateWorking
		if i%2 == 0 {
			s = a2a.TaskStateInputRequired
		}
		f.Apply([]Event{status("a", "t", s, 10+i, nil)})
	}
	if m, d := f.Timeline(k); len(m) != maxMarks || d == 0 {
		t.Fatalf("a long timeline keeps %d marks, dropped %d", len(m), d)
	}

	at := time.Unix(100, 0)
	chunk := func(last bool) Event {
		return Event{Kind: EventArtifact, Agent: "a", At: at, Artifact: &a2a.TaskArtifactUpdateEvent{TaskID: "t",
			Append: true, LastChunk: last, Artifact: &a2a.Artifact{ID: "log", Parts: a2a.ContentParts{a2a.NewTextPart("0123456789")}}}}
	}
	f.Apply([]Event{chunk(false), chunk(false)})
	at = at.Add(2 * time.Second)
	f.Apply([]Event{chunk(true)})
	s := f.Streams(k)
	if len(s) != 1 || s[0].Chunks != 3 || s[0].Bytes != 30 || !s[0].Done || s[0].Last.Sub(s[0].First) != 2*time.Second {
		t.Fatalf("streams %+v", s)
	}
}
