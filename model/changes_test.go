package model

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

func TestChangedSince(t *testing.T) {
	f := NewFleet(Options{MaxTerminalPerAgent: 1})
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	ev := func(id string, st a2a.TaskState, d time.Duration) Event {
		ts := at.Add(d)
		return Event{Kind: EventStatus, Agent: "a", At: ts, Status: &a2a.TaskStatusUpdateEvent{TaskID: a2a.TaskID(id), Status: a2a.TaskStatus{State: st, Timestamp: &ts}}}
	}
	mark := f.ChangeMark()
	f.Apply([]Event{ev("t1", a2a.TaskStateWorking, 1), ev("t2", a2a.TaskStateInputRequired, 2)})
	ch, next, ok := f.ChangedSince(mark)
	keys := changedKeys(ch)
	if !ok || !slices.Equal(keys, []TaskKey{{"a", "t1"}, {"a", "t2"}}) {
		t.Fatalf("after two new tasks: %v %v", keys, ok)
	}
	f.Apply([]Event{ev("t1", a2a.TaskStateWorking, 1)}) // a repeat changes nothing
	if ch, n, ok := f.ChangedSince(next); !ok || len(ch) != 0 || n != next {
		t.Fatalf("after a repeat: %v %v", ch, ok)
	}
	// The agent's health moves every row of it (stale), Gone one row.
	f.Apply([]Event{{Kind: EventHealth, Agent: "a", Health: &HealthUpdate{State: HealthUnreachable}}})
	f.Apply([]Event{{Kind: EventGone, Agent: "a", Task: &a2a.Task{ID: "t2"}}})
	ch, next, _ = f.ChangedSince(next)
	keys = changedKeys(ch)
	if !slices.Equal(keys, []TaskKey{{"a", "t1"}, {"a", "t2"}, {"a", "t2"}}) {
		t.Fatalf("after a health change and a gone task: %v", keys)
	}
	// Two tasks end (t2 heard of again: no longer gone); the older is
	// evicted, which is a change of it too.
	f.Apply([]Event{ev("t1", a2a.TaskStateCompleted, 3), ev("t2", a2a.TaskStateCompleted, 4)})
	ch, next, _ = f.ChangedSince(next)
	keys = changedKeys(ch)
	if !slices.Equal(keys, []TaskKey{{"a", "t1"}, {"a", "t2"}, {"a", "t2"}, {"a", "t1"}}) || f.Task(TaskKey{"a", "t1"}) != nil {
		t.Fatalf("after two ends and an eviction: %v", keys)
	}
	// A reader too far behind is told to rebuild.
	for i := range 2*maxChanges + 1 {
		f.Apply([]Event{ev(fmt.Sprint("n", i), a2a.TaskStateWorking, time.Duration(5+i))})
	}
	if _, _, ok := f.ChangedSince(next); ok {
		t.Fatal("a mark older than the log remembers was answered")
	}
	if ch, _, ok := f.ChangedSince(f.ChangeMark() - 1); !ok || len(ch) != 1 {
		t.Fatalf("the last change: %v %v", ch, ok)
	}
}

func changedKeys(ch []Change) []TaskKey {
	out := make([]TaskKey, len(ch))
	for i, c := range ch {
		out[i] = c.Key
	}
	return out
}
