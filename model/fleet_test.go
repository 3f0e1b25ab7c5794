package model

import (
	"testing"
	"time"

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
