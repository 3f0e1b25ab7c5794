package a2aclient

import (
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// What Get, Reply and Cancel return is the caller's own: the event they
// also send carries a copy, which the consumer (model.Fleet on the UI
// goroutine) keeps and updates while approvals reads the returned task.
// Run under -race: a shared Task, History array or Artifact is a data race
// here, and the pointer checks fail without -race too.
func TestOperationResultsNotShared(t *testing.T) {
	a := sdktest.Start(t, sdktest.JSONRPC, true, nil)
	m := New([]AgentOptions{fast("a", a.URL())}, Options{}) // no Run: only the operations emit
	ctx := t.Context()

	done := a.Send(t, "done")
	waitState(t, m, done, a2a.TaskStateCompleted)
	drain(m)
	got, err := m.Get(ctx, "a", done, 0, true)
	if err != nil || len(got.History) == 0 || len(got.Artifacts) == 0 {
		t.Fatalf("Get = %v, %v; want a task with history and artifacts", got, err)
	}
	checkNotShared(t, m, "Get", got, model.SourcePoll)

	ask := a.Send(t, "ask")
	waitState(t, m, ask, a2a.TaskStateInputRequired)
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("answer"))
	msg.ID, msg.TaskID = "reply-shared", ask
	drain(m)
	got, err = m.Reply(ctx, "a", msg)
	for i := 0; i < 50 && err != nil && strings.Contains(Describe(err), "already in progress"); i++ {
		time.Sleep(20 * time.Millisecond) // see TestOperations
		got, err = m.Reply(ctx, "a", msg)
	}
	if err != nil || got == nil || len(got.History) == 0 {
		t.Fatalf("Reply = %v, %v; want the task with its history", got, err)
	}
	checkNotShared(t, m, "Reply", got, model.SourceReply)

	held := a.Send(t, "hold")
	drain(m)
	got, err = m.Cancel(ctx, "a", held)
	if err != nil || got == nil {
		t.Fatalf("Cancel(running) = %v, %v", got, err)
	}
	checkNotShared(t, m, "Cancel", got, model.SourceReply)

	drain(m)
	got, err = m.Cancel(ctx, "a", done) // refused: the task comes from GetTask
	if got == nil || len(got.Artifacts) == 0 {
		t.Fatalf("Cancel(completed) = %v, %v; want the completed task with artifacts", got, err)
	}
	checkNotShared(t, m, "Cancel then GetTask", got, model.SourcePoll)
}

// checkNotShared finds the event carrying got's snapshot, checks that it
// shares no mutable part with got, then lets a model.Fleet (with small
// caps, so it cuts history and artifact parts) and direct writes change the
// event's snapshot while this goroutine reads got.
func checkNotShared(t *testing.T, m *Manager, op string, got *a2a.Task, src model.Source) {
	t.Helper()
	var ev model.Event
	for found := false; !found; {
		select {
		case e := <-m.Events():
			found = e.Kind == model.EventTask && e.Task.ID == got.ID && e.Source == src
			if found {
				ev = e
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: no %s event for task %s", op, src, got.ID)
		}
	}
	s := ev.Task
	if s == got {
		t.Fatalf("%s: the event carries the very task returned", op)
	}
	if len(s.History) > 0 && &s.History[0] == &got.History[0] {
		t.Errorf("%s: the event's history shares the returned task's array", op)
	}
	for i := range s.Artifacts {
		if s.Artifacts[i] == got.Artifacts[i] {
			t.Errorf("%s: artifact %d is the same object in the event and the result", op, i)
		}
	}
	before := readTask(got)

	fleet := model.NewFleet(model.Options{MaxHistory: 1, MaxArtifactBytes: 3})
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		now := time.Now()
		fleet.Apply([]model.Event{ev,
			{Kind: model.EventArtifact, Agent: "a", At: now, Source: model.SourceStream, Artifact: &a2a.TaskArtifactUpdateEvent{
				TaskID: got.ID, ContextID: got.ContextID, Append: true,
				Artifact: &a2a.Artifact{ID: firstArtifactID(got), Parts: []*a2a.Part{a2a.NewTextPart("more")}}}},
			{Kind: model.EventStatus, Agent: "a", At: now, Source: model.SourceStream, Status: &a2a.TaskStatusUpdateEvent{
				TaskID: got.ID, ContextID: got.ContextID, Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &now}}},
		})
		s.Status = a2a.TaskStatus{State: a2a.TaskStateFailed}
		for i := range s.History {
			s.History[i] = nil
		}
		for _, art := range s.Artifacts {
			art.Name = "changed"
			art.Parts = append(art.Parts, a2a.NewTextPart("appended"))
		}
		s.Artifacts = append(s.Artifacts, &a2a.Artifact{ID: "new"})
	}()
	during := readTask(got)
	<-wrote
	if after := readTask(got); after != before || during != before {
		t.Errorf("%s: the returned task changed while the event's copy was updated:\n before %s\n after  %s", op, before, after)
	}
}

// drain discards the events waiting, so the next one found is the operation's.
func drain(m *Manager) {
	for {
		select {
		case <-m.Events():
		default:
			return
		}
	}
}

func firstArtifactID(t *a2a.Task) a2a.ArtifactID {
	if len(t.Artifacts) > 0 {
		return t.Artifacts[0].ID
	}
	return "none"
}

// readTask reads every field the consumers of a result read.
func readTask(t *a2a.Task) string {
	var b strings.Builder
	b.WriteString(string(t.Status.State))
	for _, m := range t.History {
		if m != nil {
			b.WriteString(" h:" + m.ID)
		}
	}
	for _, a := range t.Artifacts {
		b.WriteString(" a:" + string(a.ID) + "/" + a.Name)
		for _, p := range a.Parts {
			b.WriteString("/" + p.Text())
		}
	}
	return b.String()
}
