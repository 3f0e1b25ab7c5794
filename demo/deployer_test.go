package demo

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
)

func TestDeployerRejectsProductionStraightFromSubmitted(t *testing.T) {
	f := startFleet(t, Options{NoPlanner: true})
	c := sdkClient(t, f, Deployer)
	req := &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("deploy 9f3c2e1 to production"))}
	var states []a2a.TaskState
	var last string
	for ev, err := range c.SendStreamingMessage(testCtx(t), req) {
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		switch ev := ev.(type) {
		case *a2a.Task:
			states = append(states, ev.Status.State)
		case *a2a.TaskStatusUpdateEvent:
			states = append(states, ev.Status.State)
			last = textOf(ev.Status.Message)
		}
	}
	want := []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateRejected}
	if !slices.Equal(states, want) {
		t.Fatalf("states = %v, want %v", states, want)
	}
	if last != ProductionPolicy {
		t.Fatalf("status text = %q, want %q", last, ProductionPolicy)
	}
}

// stagingDeploy starts a staging deploy and returns it in AUTH_REQUIRED.
func stagingDeploy(t *testing.T, f *Fleet, text string) *a2a.Task {
	t.Helper()
	task := send(t, sdkClient(t, f, Deployer), text, false) // blocking: returns at AUTH_REQUIRED
	if task.Status.State != a2a.TaskStateAuthRequired {
		t.Fatalf("state = %s, want AUTH_REQUIRED", task.Status.State)
	}
	if got := statusText(task); got != "approve deploy of 9f3c2e1 to staging?" {
		t.Fatalf("question = %q", got)
	}
	return task
}

func hasMessage(task *a2a.Task, id string) bool {
	return slices.ContainsFunc(task.History, func(m *a2a.Message) bool { return m.ID == id })
}

func TestDeployerApprovedByMessageProceeds(t *testing.T) {
	f := startFleet(t, Options{NoPlanner: true})
	c := sdkClient(t, f, Deployer)
	task := stagingDeploy(t, f, "deploy 9f3c2e1 to staging")

	decision := a2a.NewDataPart(map[string]any{"decision": "approve", "reason": "tests are green", "approver": "ops@host"})
	msg, res, err := reply(testCtx(t), c, task, true, a2a.NewTextPart("approve: tests are green"), decision)
	if err != nil {
		t.Fatalf("approve on the same taskId: %v", err)
	}
	got, ok := res.(*a2a.Task)
	if !ok || got.ID != task.ID || got.Status.State.Terminal() || got.Status.State == a2a.TaskStateAuthRequired {
		t.Fatalf("answer = %+v, want the same task, moving on", res)
	}
	if !hasMessage(got, msg.ID) {
		t.Fatalf("answer's history lacks the decision message %s", msg.ID)
	}
	done := waitState(t, c, task.ID, a2a.TaskStateCompleted, a2a.TaskStateFailed)
	if done.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("after approval: %s %q, want COMPLETED", done.Status.State, statusText(done))
	}
	out, _ := findArtifact(done, "deploy").Parts[0].Data().(map[string]any)
	if out["approvedBy"] != "ops@host" {
		t.Errorf("deploy.json = %v, want approvedBy ops@host", out)
	}
	// A retry with the same messageId is answered, not refused or applied twice.
	again, err := c.SendMessage(testCtx(t), &a2a.SendMessageRequest{Message: msg})
	if err != nil {
		t.Fatalf("retry of the same message: %v", err)
	}
	if again.(*a2a.Task).Status.State != a2a.TaskStateCompleted {
		t.Fatalf("retry answered %+v", again)
	}
}

func TestDeployerDeniedByMessageFails(t *testing.T) {
	f := startFleet(t, Options{NoPlanner: true})
	c := sdkClient(t, f, Deployer)
	task := stagingDeploy(t, f, "deploy 9f3c2e1 to staging")
	msg, res, err := reply(testCtx(t), c, task, false, a2a.NewTextPart("Denied: not during the freeze"))
	if err != nil {
		t.Fatalf("deny: %v", err)
	}
	got := res.(*a2a.Task)
	if got.Status.State != a2a.TaskStateFailed || !strings.Contains(statusText(got), "not during the freeze") {
		t.Fatalf("after deny: %s %q, want FAILED naming the reason", got.Status.State, statusText(got))
	}
	if !hasMessage(got, msg.ID) {
		t.Fatal("the denial is not in the task's history")
	}
}

func TestDeployerRefusesAMessageThatIsNoDecision(t *testing.T) {
	f := startFleet(t, Options{NoPlanner: true})
	c := sdkClient(t, f, Deployer)
	task := stagingDeploy(t, f, "deploy 9f3c2e1 to staging")
	_, _, err := reply(testCtx(t), c, task, true, a2a.NewTextPart("what does this change?"))
	if !errors.Is(err, a2a.ErrInvalidParams) || !strings.Contains(err.Error(), "approve") {
		t.Fatalf("err = %v, want invalid params saying how to approve", err)
	}
	other := a2a.NewMessageForTask(a2a.MessageRoleUser, task, a2a.NewTextPart("approve"))
	other.ContextID = "another-context"
	if _, err := c.SendMessage(testCtx(t), &a2a.SendMessageRequest{Message: other}); !errors.Is(err, a2a.ErrInvalidParams) {
		t.Fatalf("approve from another context: err %v, want invalid params", err)
	}
	if got := waitState(t, c, task.ID, a2a.TaskStateAuthRequired); got.Status.State != a2a.TaskStateAuthRequired {
		t.Fatalf("state = %s", got.Status.State)
	}
}

func TestDeployerResumesOutOfBandWithNoMessage(t *testing.T) {
	f := startFleet(t, Options{NoPlanner: true})
	c := sdkClient(t, f, Deployer)
	task := stagingDeploy(t, f, "deploy 9f3c2e1 to staging with change ticket CHG-2041")
	done := waitState(t, c, task.ID, a2a.TaskStateCompleted, a2a.TaskStateFailed)
	if done.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("state = %s %q, want COMPLETED", done.Status.State, statusText(done))
	}
	users := 0
	for _, m := range done.History {
		if m.Role == a2a.MessageRoleUser {
			users++
		}
	}
	if users != 1 {
		t.Fatalf("history has %d user messages, want only the request", users)
	}
	out, _ := findArtifact(done, "deploy").Parts[0].Data().(map[string]any)
	if out["approvedBy"] != "change-management" {
		t.Errorf("deploy.json = %v, want approvedBy change-management", out)
	}
}

func TestPlannerTaskNamesTheDeployerTask(t *testing.T) {
	f := startFleet(t, Options{NoPlanner: true})
	pc, dc := sdkClient(t, f, Planner), sdkClient(t, f, Deployer)
	root := send(t, pc, "ship 9f3c2e1 to staging", true)
	waiting := waitState(t, pc, root.ID, a2a.TaskStateAuthRequired)
	refs := waiting.Status.Message.ReferenceTasks
	if len(refs) != 1 {
		t.Fatalf("referenceTaskIds = %v, want the deployer's task", refs)
	}
	leaf, err := dc.GetTask(testCtx(t), &a2a.GetTaskRequest{ID: refs[0]})
	if err != nil {
		t.Fatalf("the referenced task is not the deployer's: %v", err)
	}
	if leaf.Status.State != a2a.TaskStateAuthRequired || !strings.Contains(statusText(waiting), "waiting on deployer approval") {
		t.Fatalf("leaf %s, root says %q", leaf.Status.State, statusText(waiting))
	}
	if _, _, err := reply(testCtx(t), pc, waiting, true, a2a.NewTextPart("approve")); !errors.Is(err, a2a.ErrUnsupportedOperation) ||
		!strings.Contains(err.Error(), string(leaf.ID)) {
		t.Fatalf("approving the root: err %v, want unsupported, naming the deployer task", err)
	}
	if _, _, err := reply(testCtx(t), dc, leaf, true, a2a.NewTextPart("approve")); err != nil {
		t.Fatalf("approving the leaf: %v", err)
	}
	done := waitState(t, pc, root.ID, a2a.TaskStateCompleted, a2a.TaskStateFailed)
	if done.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("root after approval: %s %q", done.Status.State, statusText(done))
	}
}

func TestPlannerFailsWhenTheDeployIsDenied(t *testing.T) {
	f := startFleet(t, Options{NoPlanner: true})
	pc, dc := sdkClient(t, f, Planner), sdkClient(t, f, Deployer)
	root := send(t, pc, "ship 9f3c2e1 to staging", true)
	waiting := waitState(t, pc, root.ID, a2a.TaskStateAuthRequired)
	leaf := &a2a.Task{ID: waiting.Status.Message.ReferenceTasks[0]}
	leaf = waitState(t, dc, leaf.ID, a2a.TaskStateAuthRequired)
	if _, _, err := reply(testCtx(t), dc, leaf, true, a2a.NewDataPart(map[string]any{"decision": "deny", "reason": "freeze"})); err != nil {
		t.Fatalf("deny the leaf: %v", err)
	}
	done := waitState(t, pc, root.ID, a2a.TaskStateCompleted, a2a.TaskStateFailed)
	if done.Status.State != a2a.TaskStateFailed {
		t.Fatalf("root after denial: %s, want FAILED", done.Status.State)
	}
}

func TestDeployerTakesADecisionOnAStreamingCall(t *testing.T) {
	f := startFleet(t, Options{NoPlanner: true})
	c := sdkClient(t, f, Deployer)
	task := stagingDeploy(t, f, "deploy 9f3c2e1 to staging")
	msg := a2a.NewMessageForTask(a2a.MessageRoleUser, task, a2a.NewTextPart("approved"))
	var got []a2a.Event
	for ev, err := range c.SendStreamingMessage(testCtx(t), &a2a.SendMessageRequest{Message: msg}) {
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		got = append(got, ev)
	}
	if len(got) != 1 {
		t.Fatalf("stream gave %d events, want the task once", len(got))
	}
	if tk, ok := got[0].(*a2a.Task); !ok || tk.ID != task.ID || !hasMessage(tk, msg.ID) {
		t.Fatalf("stream event = %+v, want the task with the decision in history", got[0])
	}
}

func TestCancelEndsWaitingTasks(t *testing.T) {
	f := startFleet(t, Options{NoPlanner: true})
	dc, rc, pc := sdkClient(t, f, Deployer), sdkClient(t, f, CodeReviewer), sdkClient(t, f, Planner)
	deploy := stagingDeploy(t, f, "deploy 9f3c2e1 to staging")
	review := send(t, rc, "review PR #7", false)
	root := waitState(t, pc, send(t, pc, "ship 9f3c2e1 to staging", true).ID, a2a.TaskStateAuthRequired)
	leaf := root.Status.Message.ReferenceTasks[0]
	for _, tc := range []struct {
		name string
		c    *a2aclient.Client
		id   a2a.TaskID
	}{{"staging deploy", dc, deploy.ID}, {"review", rc, review.ID}, {"planner", pc, root.ID}} {
		got, err := tc.c.CancelTask(testCtx(t), &a2a.CancelTaskRequest{ID: tc.id})
		if err != nil || got.Status.State != a2a.TaskStateCanceled {
			t.Fatalf("cancel %s: %v %v, want CANCELED", tc.name, got, err)
		}
	}
	if got := waitState(t, dc, leaf, a2a.TaskStateCanceled); !strings.Contains(statusText(root), string(leaf)) {
		t.Fatalf("deployer task %s: %s; root said %q", leaf, got.Status.State, statusText(root))
	}
}
