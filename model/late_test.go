package model

import (
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestLateAfterEndIsStale: a task reaches the fleet by several ways at
// once, and what one way says late (an artifact chunk, an older state,
// a state with no timestamp) after another told of the end is stale,
// whatever the way: ignored, and not counted as the agent's violation.
// A snapshot of the same terminal state still fills in artifacts; only
// a state stamped later than the end is a violation. Terminal tasks
// never restart (a refinement is a new task in the same context), and
// such a new task is handled as any other.
func TestLateAfterEndIsStale(t *testing.T) {
	f := NewFleet(Options{})
	k := TaskKey{"deployer", "t"}
	at := func(d time.Duration) *time.Time {
		v := t0.Add(d)
		return &v
	}
	st := func(src Source, state a2a.TaskState, ts *time.Time) Event {
		return Event{Kind: EventStatus, Agent: k.Agent, Source: src, At: t0.Add(time.Hour),
			Status: &a2a.TaskStatusUpdateEvent{TaskID: k.ID, ContextID: "ctx", Status: a2a.TaskStatus{State: state, Timestamp: ts}}}
	}
	chunk := func(src Source, id a2a.TaskID) Event {
		return Event{Kind: EventArtifact, Agent: k.Agent, Source: src, At: t0.Add(time.Hour),
			Artifact: &a2a.TaskArtifactUpdateEvent{TaskID: id, ContextID: "ctx", Append: true,
				Artifact: &a2a.Artifact{ID: "log", Parts: a2a.ContentParts{a2a.NewTextPart("late line")}}}}
	}
	sweep := func(state a2a.TaskState, ts *time.Time) Event {
		return Event{Kind: EventTask, Agent: k.Agent, Source: SourceSweep, At: t0.Add(time.Hour),
			Task: &a2a.Task{ID: k.ID, ContextID: "ctx", Status: a2a.TaskStatus{State: state, Timestamp: ts}}}
	}
	summary := sweep(a2a.TaskStateCompleted, nil)
	summary.Source = SourcePoll
	summary.Task.Artifacts = []*a2a.Artifact{{ID: "summary", Parts: a2a.ContentParts{a2a.NewTextPart("all passed")}}}
	older := sweep(a2a.TaskStateWorking, at(time.Second))
	older.Source = SourcePush

	steps := []struct {
		name       string
		ev         Event
		violations int  // counted by this event
		changed    bool // anything visible changed
		state      a2a.TaskState
	}{
		{"working by stream", st(SourceStream, a2a.TaskStateWorking, at(0)), 0, true, a2a.TaskStateWorking},
		{"completed by sweep", sweep(a2a.TaskStateCompleted, at(2*time.Second)), 0, true, a2a.TaskStateCompleted},
		{"a late chunk by stream", chunk(SourceStream, k.ID), 0, false, a2a.TaskStateCompleted},
		{"a late chunk by push", chunk(SourcePush, k.ID), 0, false, a2a.TaskStateCompleted},
		{"a late working by stream", st(SourceStream, a2a.TaskStateWorking, at(time.Second)), 0, false, a2a.TaskStateCompleted},
		{"a late working snapshot by push", older, 0, false, a2a.TaskStateCompleted},
		{"working without a timestamp by push", st(SourcePush, a2a.TaskStateWorking, nil), 0, false, a2a.TaskStateCompleted},
		{"another end, stamped at the end", st(SourcePush, a2a.TaskStateCanceled, at(2*time.Second)), 0, false, a2a.TaskStateCompleted},
		{"the completed snapshot with artifacts", summary, 0, true, a2a.TaskStateCompleted},
		{"working, later than the end", st(SourceStream, a2a.TaskStateWorking, at(time.Minute)), 1, true, a2a.TaskStateCompleted},
	}
	want := 0
	for _, s := range steps {
		v0 := f.Version()
		res := f.Apply([]Event{s.ev})
		want += s.violations
		tk := f.Task(k)
		if res.Violations != s.violations || int(tk.Violations) != want || f.Agent(k.Agent).Violations != want {
			t.Errorf("%s: violations batch=%d task=%d agent=%d, want %d and %d in all",
				s.name, res.Violations, tk.Violations, f.Agent(k.Agent).Violations, s.violations, want)
		}
		if res.Changed != s.changed || (f.Version() != v0) != s.changed {
			t.Errorf("%s: changed %v (version %d -> %d), want %v", s.name, res.Changed, v0, f.Version(), s.changed)
		}
		if tk.State != s.state {
			t.Errorf("%s: state %s, want %s", s.name, tk.State, s.state)
		}
		if len(res.Entered) != 0 || len(res.Left) != 0 {
			t.Errorf("%s: entered %v left %v", s.name, res.Entered, res.Left)
		}
	}
	tk := f.Task(k)
	if tk.Class != ClassTerminal || artifactText(tk, "summary") != "all passed" || artifactText(tk, "log") != "<none>" {
		t.Errorf("class %v, summary %q, log %q: the end and its artifacts are kept, the late chunks are not",
			tk.Class, artifactText(tk, "summary"), artifactText(tk, "log"))
	}

	// A refinement is a new task, in the same context: handled as any
	// new task, its chunk taken.
	res := f.Apply([]Event{
		{Kind: EventStatus, Agent: k.Agent, Source: SourceStream, At: t0.Add(time.Hour),
			Status: &a2a.TaskStatusUpdateEvent{TaskID: "t2", ContextID: "ctx",
				Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: at(2 * time.Minute),
					Message: textMsg("refining", k.ID)}}},
		chunk(SourcePush, "t2"),
	})
	t2 := f.Task(TaskKey{k.Agent, "t2"})
	if t2 == nil || t2.Class != ClassActive || artifactText(t2, "log") != "late line" || res.Violations != 0 || t2.Violations != 0 {
		t.Fatalf("the refinement: %+v res %+v", t2, res)
	}
	if f.Task(k).State != a2a.TaskStateCompleted || f.Agent(k.Agent).Violations != 1 {
		t.Errorf("the ended task: %s, agent violations %d", f.Task(k).State, f.Agent(k.Agent).Violations)
	}
}
