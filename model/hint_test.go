package model

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

func completedWith(data any, state a2a.TaskState) Event {
	e := snap("test-runner", "r1", state, 10)
	e.Task.Artifacts = []*a2a.Artifact{
		{ID: "log", Parts: a2a.ContentParts{a2a.NewTextPart("ok\n")}},
		{ID: "summary", Name: "summary.json", Parts: a2a.ContentParts{a2a.NewDataPart(data)}},
	}
	return e
}

func TestHint(t *testing.T) {
	tests := []struct {
		name  string
		data  any
		state a2a.TaskState
		want  string
	}{
		{"the seeds' run at 9f3c2e1", map[string]any{"passed": 11.0, "failed": 1.0}, a2a.TaskStateCompleted, "1 failed / 11 passed"},
		{"no failures, no hint", map[string]any{"passed": 12.0, "failed": 0.0}, a2a.TaskStateCompleted, ""},
		{"failed without passed", map[string]any{"failed": 3.0}, a2a.TaskStateCompleted, "3 failed"},
		{"json.Number", map[string]any{"failed": json.Number("2"), "passed": json.Number("10")}, a2a.TaskStateCompleted, "2 failed / 10 passed"},
		{"ints", map[string]any{"failed": 2, "passed": int64(10)}, a2a.TaskStateCompleted, "2 failed / 10 passed"},
		{"failed as a string is not a number", map[string]any{"failed": "1"}, a2a.TaskStateCompleted, ""},
		{"a non-object data part", []any{1.0, 2.0}, a2a.TaskStateCompleted, ""},
		{"only completed tasks get the hint", map[string]any{"passed": 11.0, "failed": 1.0}, a2a.TaskStateWorking, ""},
		{"a failed task's summary is not a hint", map[string]any{"passed": 11.0, "failed": 1.0}, a2a.TaskStateFailed, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFleet(Options{})
			f.Apply([]Event{completedWith(tt.data, tt.state)})
			tk := f.Task(TaskKey{"test-runner", "r1"})
			if tk.Hint != tt.want {
				t.Errorf("Hint = %q, want %q", tk.Hint, tt.want)
			}
		})
	}
}

func TestHintFromStreamedArtifact(t *testing.T) {
	f := NewFleet(Options{})
	f.Apply([]Event{
		status("test-runner", "r1", a2a.TaskStateWorking, 1, nil),
		{Kind: EventArtifact, Agent: "test-runner", Artifact: &a2a.TaskArtifactUpdateEvent{TaskID: "r1", LastChunk: true,
			Artifact: &a2a.Artifact{ID: "summary", Parts: a2a.ContentParts{a2a.NewDataPart(map[string]any{"passed": 11.0, "failed": 1.0})}}}},
	})
	tk := f.Task(TaskKey{"test-runner", "r1"})
	if tk.Hint != "" {
		t.Errorf("a working task has hint %q", tk.Hint)
	}
	f.Apply([]Event{status("test-runner", "r1", a2a.TaskStateCompleted, 2, textMsg("1 failed, 11 passed"))})
	if tk.Hint != "1 failed / 11 passed" || f.RowHint(tk) != tk.Hint {
		t.Errorf("Hint = %q RowHint = %q", tk.Hint, f.RowHint(tk))
	}
	// a terminal task's own hint wins over "stale"
	f.Apply([]Event{healthEv("test-runner", HealthUnreachable)})
	if f.RowHint(tk) != "1 failed / 11 passed" {
		t.Errorf("RowHint of a stale completed task = %q", f.RowHint(tk))
	}
}

func TestHintSurvivesArtifactCap(t *testing.T) {
	f := NewFleet(Options{MaxArtifactBytes: 16})
	e := completedWith(map[string]any{"passed": 11.0, "failed": 1.0}, a2a.TaskStateCompleted)
	e.Task.Artifacts[0].Parts = a2a.ContentParts{a2a.NewTextPart(strings.Repeat("log line\n", 100))}
	f.Apply([]Event{e})
	tk := f.Task(TaskKey{"test-runner", "r1"})
	if tk.Hint != "1 failed / 11 passed" || !tk.Truncated {
		t.Errorf("Hint = %q Truncated = %v", tk.Hint, tk.Truncated)
	}
}
