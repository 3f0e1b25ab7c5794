package model

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

var (
	kD1 = TaskKey{"deployer", "d1"}
)

func artifactEv(agent string, id a2a.TaskID, art a2a.ArtifactID, text string, appendIt, last bool) Event {
	return Event{Kind: EventArtifact, Agent: agent, Source: SourceStream, At: *ts(5),
		Artifact: &a2a.TaskArtifactUpdateEvent{TaskID: id, ContextID: "ctx", Append: appendIt, LastChunk: last,
			Artifact: &a2a.Artifact{ID: art, Parts: a2a.ContentParts{a2a.NewTextPart(text)}}}}
}

func healthEv(agent string, h Health) Event {
	return Event{Kind: EventHealth, Agent: agent, Health: &HealthUpdate{State: h}}
}

func artifactText(tk *Task, id a2a.ArtifactID) string {
	for _, a := range tk.Snapshot.Artifacts {
		if a.ID == id {
			s := ""
			for _, p := range a.Parts {
				s += p.Text()
			}
			return s
		}
	}
	return "<none>"
}

func TestApplyRules(t *testing.T) {
	tests := []struct {
		name   string
		before []Event
		batch  []Event
		check  func(t *testing.T, f *Fleet, res ApplyResult, v0 uint64)
	}{
		{
			name:   "terminal is final: a later status is ignored and counted",
			before: []Event{snap("deployer", "d1", a2a.TaskStateCompleted, 10)},
			batch:  []Event{status("deployer", "d1", a2a.TaskStateWorking, 20, nil)},
			check: func(t *testing.T, f *Fleet, res ApplyResult, _ uint64) {
				tk := f.Task(kD1)
				if tk.State != a2a.TaskStateCompleted || tk.Class != ClassTerminal {
					t.Errorf("state = %s", tk.State)
				}
				if tk.Violations != 1 || f.Agent("deployer").Violations != 1 || res.Violations != 1 || !res.Changed {
					t.Errorf("violations task=%d agent=%d res=%+v", tk.Violations, f.Agent("deployer").Violations, res)
				}
			},
		},
		{
			name:   "terminal is final: a snapshot with another state is a violation",
			before: []Event{snap("deployer", "d1", a2a.TaskStateRejected, 10)},
			batch:  []Event{snap("deployer", "d1", a2a.TaskStateInputRequired, 30)},
			check: func(t *testing.T, f *Fleet, res ApplyResult, _ uint64) {
				tk := f.Task(kD1)
				if tk.State != a2a.TaskStateRejected || tk.Violations != 1 || len(res.Entered) != 0 {
					t.Errorf("state = %s violations = %d res = %+v", tk.State, tk.Violations, res)
				}
			},
		},
		{
			name:   "terminal is final: an artifact update is stale, ignored and not counted",
			before: []Event{snap("deployer", "d1", a2a.TaskStateFailed, 10)},
			batch:  []Event{artifactEv("deployer", "d1", "log", "late", false, true)},
			check: func(t *testing.T, f *Fleet, res ApplyResult, _ uint64) {
				tk := f.Task(kD1)
				if len(tk.Snapshot.Artifacts) != 0 || tk.Violations != 0 || res.Changed {
					t.Errorf("artifacts = %d violations = %d", len(tk.Snapshot.Artifacts), tk.Violations)
				}
			},
		},
		{
			name:   "terminal is final: the same terminal status again is a quiet no-op",
			before: []Event{status("deployer", "d1", a2a.TaskStateCompleted, 10, nil)},
			batch:  []Event{status("deployer", "d1", a2a.TaskStateCompleted, 10, nil)},
			check: func(t *testing.T, f *Fleet, res ApplyResult, v0 uint64) {
				if res.Changed || f.Version() != v0 || f.Task(kD1).Violations != 0 {
					t.Errorf("res = %+v violations = %d", res, f.Task(kD1).Violations)
				}
			},
		},
		{
			name:   "a snapshot with the same terminal state fills in artifacts",
			before: []Event{status("test-runner", "r1", a2a.TaskStateCompleted, 10, textMsg("1 failed, 11 passed"))},
			batch: []Event{func() Event {
				e := snap("test-runner", "r1", a2a.TaskStateCompleted, 10)
				e.Task.Artifacts = []*a2a.Artifact{{ID: "summary", Name: "summary.json",
					Parts: a2a.ContentParts{a2a.NewDataPart(map[string]any{"passed": 11.0, "failed": 1.0})}}}
				return e
			}()},
			check: func(t *testing.T, f *Fleet, res ApplyResult, _ uint64) {
				tk := f.Task(TaskKey{"test-runner", "r1"})
				if tk.Hint != "1 failed / 11 passed" || tk.Violations != 0 || len(tk.Snapshot.Artifacts) != 1 {
					t.Errorf("hint = %q violations = %d", tk.Hint, tk.Violations)
				}
			},
		},
		{
			name: "a snapshot without artifacts or history keeps the ones held",
			before: []Event{
				withHistory(snap("test-runner", "r1", a2a.TaskStateWorking, 1), textMsg("run 9f3c2e1")),
				{Kind: EventArtifact, Agent: "test-runner", Artifact: &a2a.TaskArtifactUpdateEvent{TaskID: "r1", LastChunk: true,
					Artifact: &a2a.Artifact{ID: "summary", Parts: a2a.ContentParts{a2a.NewDataPart(map[string]any{"passed": 11.0, "failed": 1.0})}}}},
			},
			batch: []Event{snap("test-runner", "r1", a2a.TaskStateCompleted, 9)},
			check: func(t *testing.T, f *Fleet, res ApplyResult, _ uint64) {
				tk := f.Task(TaskKey{"test-runner", "r1"})
				if len(tk.Snapshot.Artifacts) != 1 || len(tk.Snapshot.History) != 1 || tk.Hint != "1 failed / 11 passed" {
					t.Errorf("artifacts = %d history = %d hint = %q", len(tk.Snapshot.Artifacts), len(tk.Snapshot.History), tk.Hint)
				}
			},
		},
		{
			name:   "an older snapshot does not overwrite a newer one",
			before: []Event{snap("deployer", "d1", a2a.TaskStateAuthRequired, 20)},
			batch:  []Event{snap("deployer", "d1", a2a.TaskStateWorking, 10)},
			check: func(t *testing.T, f *Fleet, res ApplyResult, v0 uint64) {
				tk := f.Task(kD1)
				if tk.State != a2a.TaskStateAuthRequired || !tk.Updated.Equal(*ts(20)) || res.Changed || f.Version() != v0 {
					t.Errorf("state = %s updated = %v res = %+v", tk.State, tk.Updated, res)
				}
				if !tk.LastHeard.Equal(*ts(10)) {
					t.Errorf("LastHeard = %v, want the ignored event's arrival", tk.LastHeard)
				}
			},
		},
		{
			name:   "an older status does not overwrite a newer one",
			before: []Event{status("deployer", "d1", a2a.TaskStateInputRequired, 20, textMsg("which branch?"))},
			batch:  []Event{status("deployer", "d1", a2a.TaskStateWorking, 19, textMsg("working"))},
			check: func(t *testing.T, f *Fleet, res ApplyResult, _ uint64) {
				tk := f.Task(kD1)
				if tk.State != a2a.TaskStateInputRequired || tk.Text != "which branch?" || res.Changed {
					t.Errorf("state = %s text = %q", tk.State, tk.Text)
				}
			},
		},
		{
			name:   "a newer status replaces the status and leaves the interrupted set",
			before: []Event{status("deployer", "d1", a2a.TaskStateAuthRequired, 20, textMsg("approve?"))},
			batch:  []Event{status("deployer", "d1", a2a.TaskStateWorking, 21, textMsg("deploying"))},
			check: func(t *testing.T, f *Fleet, res ApplyResult, _ uint64) {
				tk := f.Task(kD1)
				if tk.State != a2a.TaskStateWorking || tk.Text != "deploying" || tk.Source != SourceStream {
					t.Errorf("task = %+v", tk)
				}
				if len(res.Left) != 1 || res.Left[0] != kD1 || len(res.Entered) != 0 {
					t.Errorf("res = %+v", res)
				}
				if a := f.Agent("deployer"); a.Counts[ClassActive] != 1 || a.Counts[ClassInterrupted] != 0 {
					t.Errorf("counts = %v", a.Counts)
				}
			},
		},
		{
			name:   "without timestamps the newest arrival wins",
			before: []Event{{Kind: EventTask, Agent: "legacy-intake", At: *ts(1), Task: &a2a.Task{ID: "l1", Status: a2a.TaskStatus{State: "input-required"}}}},
			batch:  []Event{{Kind: EventTask, Agent: "legacy-intake", At: *ts(2), Task: &a2a.Task{ID: "l1", Status: a2a.TaskStatus{State: "completed"}}}},
			check: func(t *testing.T, f *Fleet, res ApplyResult, _ uint64) {
				tk := f.Task(TaskKey{"legacy-intake", "l1"})
				if tk.State != a2a.TaskStateCompleted || !tk.Updated.Equal(*ts(2)) || len(res.Left) != 1 {
					t.Errorf("state = %s updated = %v res = %+v", tk.State, tk.Updated, res)
				}
			},
		},
		{
			name:   "a repeated snapshot (decoded again) is a no-op",
			before: []Event{snap("deployer", "d1", a2a.TaskStateWorking, 10)},
			batch:  []Event{snap("deployer", "d1", a2a.TaskStateWorking, 10)},
			check: func(t *testing.T, f *Fleet, res ApplyResult, v0 uint64) {
				if res.Changed || f.Version() != v0 {
					t.Errorf("res = %+v, version %d -> %d", res, v0, f.Version())
				}
			},
		},
		{
			name:   "a repeated status (same state, timestamp and message id) is a no-op",
			before: []Event{status("deployer", "d1", a2a.TaskStateWorking, 10, &a2a.Message{ID: "m1", Parts: a2a.ContentParts{a2a.NewTextPart("x")}})},
			batch:  []Event{status("deployer", "d1", a2a.TaskStateWorking, 10, &a2a.Message{ID: "m1", Parts: a2a.ContentParts{a2a.NewTextPart("x")}})},
			check: func(t *testing.T, f *Fleet, res ApplyResult, v0 uint64) {
				if res.Changed || f.Version() != v0 {
					t.Errorf("res = %+v", res)
				}
			},
		},
		{
			name:   "a new status message at the same timestamp applies",
			before: []Event{status("deployer", "d1", a2a.TaskStateWorking, 10, textMsg("x"))},
			batch:  []Event{status("deployer", "d1", a2a.TaskStateWorking, 10, textMsg("y"))},
			check: func(t *testing.T, f *Fleet, res ApplyResult, v0 uint64) {
				if !res.Changed || f.Task(kD1).Text != "y" {
					t.Errorf("res = %+v text = %q", res, f.Task(kD1).Text)
				}
			},
		},
		{
			name:   "the same event pointer twice is a no-op",
			before: nil,
			batch: func() []Event {
				e := status("deployer", "d1", a2a.TaskStateWorking, 10, textMsg("x"))
				return []Event{e, e}
			}(),
			check: func(t *testing.T, f *Fleet, res ApplyResult, _ uint64) {
				if f.Len() != 1 || f.Task(kD1).State != a2a.TaskStateWorking {
					t.Errorf("len = %d", f.Len())
				}
			},
		},
		{
			name:  "a status for an unknown task creates it, and its agent",
			batch: []Event{status("stranger", "s1", a2a.TaskStateInputRequired, 10, textMsg("email?"))},
			check: func(t *testing.T, f *Fleet, res ApplyResult, _ uint64) {
				tk := f.Task(TaskKey{"stranger", "s1"})
				if tk == nil || tk.Class != ClassInterrupted || f.Agent("stranger") == nil || len(res.Entered) != 1 {
					t.Fatalf("task = %+v res = %+v", tk, res)
				}
				if tk.Snapshot.ContextID != "ctx" || !tk.FirstSeen.Equal(*ts(10)) || !tk.Since.Equal(*ts(10)) {
					t.Errorf("snapshot = %+v", tk.Snapshot)
				}
			},
		},
		{
			name:  "an artifact for an unknown task creates it in the unknown class",
			batch: []Event{artifactEv("test-runner", "r9", "log", "line 1\n", false, false)},
			check: func(t *testing.T, f *Fleet, res ApplyResult, _ uint64) {
				tk := f.Task(TaskKey{"test-runner", "r9"})
				if tk == nil || tk.Class != ClassUnknown || artifactText(tk, "log") != "line 1\n" {
					t.Fatalf("task = %+v", tk)
				}
				if f.Count(ClassUnknown, Query{}) != 1 {
					t.Errorf("unknown pane count = %d", f.Count(ClassUnknown, Query{}))
				}
			},
		},
		{
			name:  "an unknown state name is kept and shown as unknown",
			batch: []Event{snap("deployer", "d1", "TASK_STATE_PAUSED", 10)},
			check: func(t *testing.T, f *Fleet, res ApplyResult, _ uint64) {
				tk := f.Task(kD1)
				if tk.State != "TASK_STATE_PAUSED" || tk.Class != ClassUnknown || f.Count(ClassUnknown, Query{}) != 1 {
					t.Errorf("task = %+v", tk)
				}
			},
		},
		{
			name:   "artifact append, replace and lastChunk",
			before: []Event{status("test-runner", "r1", a2a.TaskStateWorking, 1, nil)},
			batch: []Event{
				artifactEv("test-runner", "r1", "log", "a", false, false),
				artifactEv("test-runner", "r1", "log", "b", true, false),
				artifactEv("test-runner", "r1", "log", "c", true, false),
				artifactEv("test-runner", "r1", "other", "x", false, true),
				artifactEv("test-runner", "r1", "other", "y", false, true),
			},
			check: func(t *testing.T, f *Fleet, res ApplyResult, _ uint64) {
				tk := f.Task(TaskKey{"test-runner", "r1"})
				if got := artifactText(tk, "log"); got != "abc" {
					t.Errorf("log = %q, want abc", got)
				}
				if got := artifactText(tk, "other"); got != "y" {
					t.Errorf("other = %q, want y (replaced)", got)
				}
				if len(tk.Partial) != 1 || tk.Partial[0] != "log" {
					t.Errorf("partial = %v, want [log]", tk.Partial)
				}
				f.Apply([]Event{artifactEv("test-runner", "r1", "log", "d", true, true)})
				if got := artifactText(tk, "log"); got != "abcd" || len(tk.Partial) != 0 {
					t.Errorf("after lastChunk: log = %q partial = %v", got, tk.Partial)
				}
			},
		},
		{
			name:   "EventGone marks the task gone and keeps it among the finished; a later event clears it",
			before: []Event{snap("deployer", "d1", a2a.TaskStateAuthRequired, 10)},
			batch:  []Event{{Kind: EventGone, Agent: "deployer", Task: &a2a.Task{ID: "d1"}}, {Kind: EventGone, Agent: "deployer", Task: &a2a.Task{ID: "nope"}}},
			check: func(t *testing.T, f *Fleet, res ApplyResult, _ uint64) {
				tk := f.Task(kD1)
				if tk == nil || !tk.Gone || tk.Class != ClassTerminal || tk.State != a2a.TaskStateAuthRequired || !res.Changed || f.Len() != 1 {
					t.Fatalf("task = %+v len = %d", tk, f.Len())
				}
				if f.RowHint(tk) != "gone: agent no longer knows this task" {
					t.Errorf("row hint = %q", f.RowHint(tk))
				}
				f.Apply([]Event{snap("deployer", "d1", a2a.TaskStateAuthRequired, 10)})
				if tk.Gone || tk.Class != ClassInterrupted {
					t.Errorf("still gone (%v) or out of its pane (%v) after the agent listed it again", tk.Gone, tk.Class)
				}
			},
		},
		{
			name:   "health updates the agent and marks its tasks stale, never their data",
			before: []Event{snap("deployer", "d1", a2a.TaskStateWorking, 10), snap("planner", "p1", a2a.TaskStateWorking, 10)},
			batch:  []Event{healthEv("deployer", HealthUnreachable)},
			check: func(t *testing.T, f *Fleet, res ApplyResult, _ uint64) {
				tk := f.Task(kD1)
				if f.Agent("deployer").Health.State != HealthUnreachable || !tk.Stale || tk.State != a2a.TaskStateWorking {
					t.Fatalf("agent = %+v task = %+v", f.Agent("deployer").Health, tk)
				}
				if f.Task(TaskKey{"planner", "p1"}).Stale {
					t.Errorf("another agent's task went stale")
				}
				if f.Index(ClassActive, Query{}, kD1) < 0 || f.Count(ClassActive, Query{}) != 2 {
					t.Errorf("the unreachable agent's task left the pane")
				}
				if got := f.RowHint(tk); got != "stale: agent unreachable" {
					t.Errorf("row hint = %q", got)
				}
				f.Apply([]Event{snap("deployer", "d2", a2a.TaskStateWorking, 11)})
				if !f.Task(TaskKey{"deployer", "d2"}).Stale {
					t.Errorf("a task heard of while the agent is down is not stale")
				}
				f.Apply([]Event{healthEv("deployer", HealthConnecting)})
				if !tk.Stale {
					t.Errorf("connecting cleared stale before the agent answered")
				}
				f.Apply([]Event{healthEv("deployer", HealthSweeping)})
				if tk.Stale || f.Task(TaskKey{"deployer", "d2"}).Stale {
					t.Errorf("stale not cleared when the agent is up")
				}
			},
		},
		{
			name:   "unauthorized and backoff mark stale too",
			before: []Event{snap("deployer", "d1", a2a.TaskStateWorking, 10)},
			batch:  []Event{healthEv("deployer", HealthUnauthorized)},
			check: func(t *testing.T, f *Fleet, res ApplyResult, _ uint64) {
				if !f.Task(kD1).Stale {
					t.Errorf("unauthorized: not stale")
				}
				f.Apply([]Event{healthEv("deployer", HealthStreaming)})
				f.Apply([]Event{healthEv("deployer", HealthBackoff)})
				if !f.Task(kD1).Stale || f.RowHint(f.Task(kD1)) != "stale: agent backing off" {
					t.Errorf("backoff: not stale")
				}
			},
		},
		{
			name:  "EventAgent sets Info; a repeat changes nothing",
			batch: []Event{{Kind: EventAgent, Agent: "deployer", Info: &AgentInfo{CardName: "Deployer", URL: "http://x", ProtocolVersion: "1.0"}}},
			check: func(t *testing.T, f *Fleet, res ApplyResult, _ uint64) {
				a := f.Agent("deployer")
				if a.Info.CardName != "Deployer" || a.URL != "http://x" || !res.Changed {
					t.Fatalf("agent = %+v", a)
				}
				v := f.Version()
				if r := f.Apply([]Event{{Kind: EventAgent, Agent: "deployer", Info: &AgentInfo{CardName: "Deployer", URL: "http://x", ProtocolVersion: "1.0"}}}); r.Changed || f.Version() != v {
					t.Errorf("repeat changed the fleet")
				}
			},
		},
		{
			name: "a task that enters and leaves the interrupted set in one batch is in neither list",
			batch: []Event{
				status("code-reviewer", "c1", a2a.TaskStateInputRequired, 1, textMsg("branch?")),
				status("code-reviewer", "c1", a2a.TaskStateCompleted, 2, nil),
			},
			check: func(t *testing.T, f *Fleet, res ApplyResult, _ uint64) {
				if len(res.Entered)+len(res.Left) != 0 {
					t.Errorf("res = %+v", res)
				}
			},
		},
		{
			name:  "status text joins text parts on one line",
			batch: []Event{status("deployer", "d1", a2a.TaskStateAuthRequired, 1, a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("approve deploy"), a2a.NewDataPart(map[string]any{"x": 1.0}), a2a.NewTextPart("to staging?")))},
			check: func(t *testing.T, f *Fleet, res ApplyResult, _ uint64) {
				if got := f.Task(kD1).Text; got != "approve deploy to staging?" {
					t.Errorf("text = %q", got)
				}
			},
		},
		{
			name:  "malformed events are ignored without a panic",
			batch: []Event{{Kind: EventTask}, {Kind: EventStatus}, {Kind: EventArtifact}, {Kind: EventArtifact, Artifact: &a2a.TaskArtifactUpdateEvent{}}, {Kind: EventHealth}, {Kind: EventAgent}, {Kind: EventGone}, {Kind: 99}},
			check: func(t *testing.T, f *Fleet, res ApplyResult, _ uint64) {
				if f.Len() != 0 {
					t.Errorf("len = %d", f.Len())
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFleet(Options{})
			f.Apply(tt.before)
			f.Count(ClassActive, Query{}) // build an index, so the rule runs against a live one
			v0 := f.Version()
			res := f.Apply(tt.batch)
			tt.check(t, f, res, v0)
			checkInvariants(t, f)
		})
	}
}
