package approvals

import (
	"context"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestPrepareNewAndFollowUpOfAnyEndedTask: a new message starts a task
// on the agent, and a follow-up of a task that ended with no decision of
// ours goes in its context naming it; each reaches the agent once and is
// journaled as its own decision, with the task it started.
func TestPrepareNewAndFollowUpOfAnyEndedTask(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()

	d, err := fx.svc.PrepareNew("agent", nil, Input{Text: "done-now", JSON: `{"priority": 1}`})
	if err != nil {
		t.Fatal(err)
	}
	if d.Kind != KindMessage || d.Message.TaskID != "" || len(d.Message.Parts) != 2 {
		t.Fatalf("new message: %+v", d)
	}
	out := fx.svc.Send(ctx, d)
	if out.Result != ResultAccepted || out.Task == nil {
		t.Fatalf("send new: %+v", out)
	}
	if n := fx.ag.times(d.MessageID); n != 1 {
		t.Fatalf("the new message reached the agent %d times", n)
	}
	e, _ := fx.svc.Entry(d.MessageID)
	if e.Kind != KindMessage || e.TaskID != out.Task.ID {
		t.Fatalf("journal entry of the new message: %+v (started %s)", e, out.Task.ID)
	}

	ended := out.Task
	ended = fx.ag.waitState(ended.ID, isTerminal)
	if _, err := fx.svc.PrepareNew("agent", &a2a.Task{ID: "x", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}, Input{Text: "more"}); err == nil {
		t.Fatal("a follow-up of a task that runs was prepared")
	}
	f, err := fx.svc.PrepareNew("agent", ended, Input{Text: "done-now again"})
	if err != nil {
		t.Fatal(err)
	}
	if f.Kind != KindFollowUp || f.Message.ContextID != ended.ContextID || len(f.Message.ReferenceTasks) != 1 ||
		f.Message.ReferenceTasks[0] != ended.ID || f.Message.TaskID != "" {
		t.Fatalf("follow-up: %+v", f.Message)
	}
	if o := fx.svc.Send(ctx, f); o.Result != ResultAccepted || fx.ag.times(f.MessageID) != 1 {
		t.Fatalf("send follow-up: %+v, %d times", o, fx.ag.times(f.MessageID))
	}
	if o := fx.svc.Send(ctx, f); o.Result != ResultRefused || fx.ag.times(f.MessageID) != 1 {
		t.Fatalf("the same follow-up sent twice: %+v, %d times", o, fx.ag.times(f.MessageID))
	}
	if _, err := fx.svc.PrepareNew("agent", nil, Input{}); err == nil {
		t.Fatal("an empty message was prepared")
	}
}
