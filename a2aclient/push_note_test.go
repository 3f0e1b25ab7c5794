package a2aclient

import (
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// TestPushLateEventsStale: a pushed task reaches a2atop by two ways at
// once (push and a stream, or a sweep). Once it has ended, what another
// way says late (an artifact chunk, an older state, a state without a
// timestamp) goes to the fleet, which ignores it as stale rather than
// counting it as the agent's protocol violation; the same terminal state
// (a snapshot with artifacts) is taken and a later state with a newer
// timestamp is the one violation counted. An ended task is never
// registered again.
func TestPushLateEventsStale(t *testing.T) {
	em := &emitter{ch: make(chan model.Event, 64), wait: time.Second}
	w := &watcher{o: AgentOptions{Name: "deployer"}, em: em, tasks: newMemos(-1, -1), dirty: map[a2a.TaskID]struct{}{}}
	p := &pusher{w: w, kick: make(chan struct{}, 1), want: map[a2a.TaskID]bool{}, cfgs: map[a2a.TaskID]*pushConfig{"t": {id: "c"}},
		retryAt: map[a2a.TaskID]time.Time{}, adding: map[a2a.TaskID]bool{}}
	w.push.p = p
	at := func(d time.Duration) *time.Time {
		ts := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC).Add(d)
		return &ts
	}
	status := func(st a2a.TaskState, ts *time.Time) *a2a.TaskStatusUpdateEvent {
		return &a2a.TaskStatusUpdateEvent{TaskID: "t", ContextID: "c", Status: a2a.TaskStatus{State: st, Timestamp: ts}}
	}
	chunk := func(id a2a.TaskID) *a2a.TaskArtifactUpdateEvent {
		return &a2a.TaskArtifactUpdateEvent{TaskID: id, ContextID: "c", Append: true,
			Artifact: &a2a.Artifact{ID: "log", Parts: a2a.ContentParts{a2a.NewTextPart("line")}}}
	}
	w.observe(&a2a.Task{ID: "t", ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: at(0)}}, model.SourceSweep, false)
	w.onPush(status(a2a.TaskStateCompleted, at(2*time.Second)))
	w.onStreamEvent(chunk("t"))                                                                         // a late chunk
	w.onStreamEvent(status(a2a.TaskStateWorking, at(time.Second)))                                      // a late working
	w.onPush(status(a2a.TaskStateWorking, nil))                                                         // working without a timestamp
	w.observe(&a2a.Task{ID: "t", ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}, // the completed snapshot
		Artifacts: []*a2a.Artifact{{ID: "summary", Parts: a2a.ContentParts{a2a.NewTextPart("all passed")}}}}, model.SourcePoll, true)
	w.onStreamEvent(status(a2a.TaskStateWorking, at(time.Minute))) // working, later than the end
	w.onPush(chunk("u"))                                           // another task's chunk

	var batch []model.Event
	for len(em.ch) > 0 {
		batch = append(batch, <-em.ch)
	}
	f := model.NewFleet(model.Options{})
	f.Apply(batch)
	tk := f.Task(model.TaskKey{Agent: "deployer", ID: "t"})
	if tk == nil || tk.State != a2a.TaskStateCompleted || tk.Violations != 1 {
		t.Fatalf("task t: %+v: it must stay completed, with the later working as its one violation", tk)
	}
	if len(tk.Snapshot.Artifacts) != 1 || tk.Snapshot.Artifacts[0].ID != "summary" {
		t.Errorf("artifacts %v: the completed snapshot's, and no late chunk", tk.Snapshot.Artifacts)
	}
	if u := f.Task(model.TaskKey{Agent: "deployer", ID: "u"}); u == nil || len(u.Snapshot.Artifacts) != 1 {
		t.Errorf("another task's chunk was not taken: %+v", u)
	}
	if open, ok := p.want["t"]; !ok || open {
		t.Errorf("want[t] = %v %v: the ended task must be marked for deletion, never registered again", open, ok)
	}
}
