package a2aclient

import (
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// TestPushLateEventsDropped: once a pushed task has ended, what another
// way says late (an artifact chunk, an older state) is dropped, not
// handed to the fleet as a protocol violation; the same terminal state
// (a snapshot with artifacts) and a later state with a newer timestamp
// (a real violation) go on; an ended task is never registered again.
func TestPushLateEventsDropped(t *testing.T) {
	p := &pusher{kick: make(chan struct{}, 1), want: map[a2a.TaskID]bool{}, cfgs: map[a2a.TaskID]*pushConfig{"t": {id: "c"}},
		retryAt: map[a2a.TaskID]time.Time{}, adding: map[a2a.TaskID]bool{}, ended: map[a2a.TaskID]endedTask{}}
	at := func(d time.Duration) *time.Time {
		ts := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC).Add(d)
		return &ts
	}
	status := func(st a2a.TaskState, ts *time.Time) *model.Event {
		return &model.Event{Kind: model.EventStatus, Status: &a2a.TaskStatusUpdateEvent{TaskID: "t", Status: a2a.TaskStatus{State: st, Timestamp: ts}}}
	}
	steps := []struct {
		name string
		ev   *model.Event
		keep bool
	}{
		{"working", status(a2a.TaskStateWorking, at(0)), true},
		{"completed", status(a2a.TaskStateCompleted, at(2*time.Second)), true},
		{"a late chunk", &model.Event{Kind: model.EventArtifact, Artifact: &a2a.TaskArtifactUpdateEvent{TaskID: "t"}}, false},
		{"a late working", status(a2a.TaskStateWorking, at(time.Second)), false},
		{"working without a timestamp", status(a2a.TaskStateWorking, nil), false},
		{"the completed snapshot", &model.Event{Kind: model.EventTask, Task: &a2a.Task{ID: "t", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}}}, true},
		{"working, later than the end", status(a2a.TaskStateWorking, at(time.Minute)), true},
		{"another task's chunk", &model.Event{Kind: model.EventArtifact, Artifact: &a2a.TaskArtifactUpdateEvent{TaskID: "u"}}, true},
	}
	for _, s := range steps {
		if got := p.note(s.ev); got != s.keep {
			t.Errorf("%s: kept %v, want %v", s.name, got, s.keep)
		}
	}
	if open, ok := p.want["t"]; !ok || open {
		t.Errorf("want[t] = %v %v: the ended task must be marked for deletion, never registered again", open, ok)
	}
}
