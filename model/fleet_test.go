package model

import (
	"testing"
	"time"
	"unsafe"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func ts(sec int) *time.Time {
	v := t0.Add(time.Duration(sec) * time.Second)
	return &v
}

func textMsg(s string, refs ...a2a.TaskID) *a2a.Message {
	m := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart(s))
	m.ReferenceTasks = refs
	return m
}

func snap(agent string, id a2a.TaskID, state a2a.TaskState, sec int) Event {
	return Event{Kind: EventTask, Agent: agent, Source: SourceSweep, At: *ts(sec),
		Task: &a2a.Task{ID: id, ContextID: "ctx", Status: a2a.TaskStatus{State: state, Timestamp: ts(sec)}}}
}

func status(agent string, id a2a.TaskID, state a2a.TaskState, sec int, msg *a2a.Message) Event {
	return Event{Kind: EventStatus, Agent: agent, Source: SourceStream, At: *ts(sec),
		Status: &a2a.TaskStatusUpdateEvent{TaskID: id, ContextID: "ctx",
			Status: a2a.TaskStatus{State: state, Timestamp: ts(sec), Message: msg}}}
}

func TestFleetBasics(t *testing.T) {
	f := NewFleet(Options{})
	f.AddAgent("deployer", "http://127.0.0.1:1")
	f.AddAgent("planner", "http://127.0.0.1:2")
	res := f.Apply([]Event{
		snap("deployer", "d1", a2a.TaskStateAuthRequired, 1),
		status("planner", "p1", a2a.TaskStateWorking, 1, textMsg("planning")),
	})
	if !res.Changed || len(res.Entered) != 1 || res.Entered[0] != (TaskKey{"deployer", "d1"}) {
		t.Fatalf("res = %+v", res)
	}
	if got := f.Task(TaskKey{"planner", "p1"}); got == nil || got.Class != ClassActive || got.Text != "planning" {
		t.Fatalf("planner task = %+v", got)
	}
	if n := f.Count(ClassInterrupted, Query{}); n != 1 {
		t.Fatalf("interrupted count = %d", n)
	}
	if ag := f.Agents(); len(ag) != 2 || ag[0].Name != "deployer" || ag[0].Counts[ClassInterrupted] != 1 {
		t.Fatalf("agents = %+v", ag)
	}
}

// TestSameIDAcrossAgents covers the fleet-wide id map: one id at several
// agents shares a chain of tasks, from which lookups, Lookup's agent
// order and evictions (head, middle, last) must pick exactly the right
// task.
func TestSameIDAcrossAgents(t *testing.T) {
	f := NewFleet(Options{MaxTerminalPerAgent: 1})
	for _, a := range []string{"a", "b", "c", "d"} {
		f.AddAgent(a, "")
	}
	// created in another order than the agents were added
	f.Apply([]Event{
		status("c", "x", a2a.TaskStateWorking, 1, textMsg("c")),
		status("a", "x", a2a.TaskStateWorking, 1, textMsg("a")),
		status("d", "x", a2a.TaskStateWorking, 1, textMsg("d")),
		status("b", "x", a2a.TaskStateWorking, 1, textMsg("b")),
	})
	agentsOf := func(ts []*Task) string {
		s := ""
		for _, tk := range ts {
			s += tk.Key.Agent
		}
		return s
	}
	if got := agentsOf(f.Lookup("x")); got != "abcd" {
		t.Fatalf("Lookup order = %q, want abcd", got)
	}
	for _, a := range []string{"a", "b", "c", "d"} {
		if tk := f.Task(TaskKey{a, "x"}); tk == nil || tk.Text != a {
			t.Fatalf("Task(%s, x) = %+v", a, tk)
		}
	}
	// each agent's second terminal task evicts its first: "x" goes at b
	// (the middle of the chain), then at d (its head), then at c (last)
	for i, a := range []string{"b", "d", "c"} {
		f.Apply([]Event{
			status(a, "x", a2a.TaskStateCompleted, 2+i, nil),
			status(a, "y", a2a.TaskStateCompleted, 3+i, nil),
		})
		if f.Task(TaskKey{a, "x"}) != nil {
			t.Fatalf("x at %s was not evicted", a)
		}
		checkInvariants(t, f)
	}
	if got := agentsOf(f.Lookup("x")); got != "a" {
		t.Fatalf("Lookup after evictions = %q, want a", got)
	}
	// an event for an evicted task creates it again, for that agent only
	f.Apply([]Event{status("b", "x", a2a.TaskStateWorking, 9, textMsg("again"))})
	if tk := f.Task(TaskKey{"b", "x"}); tk == nil || tk.Text != "again" || f.Task(TaskKey{"a", "x"}).Text != "a" {
		t.Fatalf("re-created task = %+v", tk)
	}
	checkInvariants(t, f)
}

// TestStatusFillsContextID: a task first heard of through an artifact
// has no context id; the first status that carries one fills it in, and
// a later one does not change it.
func TestStatusFillsContextID(t *testing.T) {
	f := NewFleet(Options{})
	f.Apply([]Event{{Kind: EventArtifact, Agent: "a", At: *ts(1), Artifact: &a2a.TaskArtifactUpdateEvent{TaskID: "t",
		Artifact: &a2a.Artifact{ID: "log", Parts: a2a.ContentParts{a2a.NewTextPart("x")}}}}})
	k := TaskKey{"a", "t"}
	if got := f.Task(k).Snapshot.ContextID; got != "" {
		t.Fatalf("context id = %q", got)
	}
	e := status("a", "t", a2a.TaskStateWorking, 2, nil)
	e.Status.ContextID = "c1"
	f.Apply([]Event{e})
	e = status("a", "t", a2a.TaskStateWorking, 3, nil)
	e.Status.ContextID = "c2"
	f.Apply([]Event{e})
	if got := f.Task(k).Snapshot.ContextID; got != "c1" {
		t.Fatalf("context id = %q, want c1", got)
	}
}

// TestTaskLayout guards what BenchmarkApplyStatus depends on: the fields
// a status event reads fit in the Task's first two cache lines, and the
// Task stays in the 320-byte size class, whose objects are 64-byte
// aligned (a bigger class, 352, is not).
func TestTaskLayout(t *testing.T) {
	var tk Task
	if end := unsafe.Offsetof(tk.hasCtx) + 1; end > 128 {
		t.Errorf("the fields a status event reads end at byte %d, past the second cache line", end)
	}
	if size := unsafe.Sizeof(tk); size > 320 {
		t.Errorf("Task is %d bytes, past the 320-byte size class", size)
	}
}
