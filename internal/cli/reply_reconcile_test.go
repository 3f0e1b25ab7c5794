package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient"
	"a2atop/approvals"
	"a2atop/demo"
	"a2atop/internal/config"
	"a2atop/model"
)

// lostSender is a2aclient whose Reply is lost on the way: the process
// died, or the call timed out, before the agent got the message.
type lostSender struct{ *a2aclient.Manager }

func (lostSender) Reply(context.Context, string, *a2a.Message) (*a2a.Task, error) {
	return nil, context.DeadlineExceeded
}

// A decision whose outcome a timeout left unknown is settled by the next
// `a2atop reply` (GetTask: our messageId is not in the history) before
// anything else is sent, and the new decision reaches the agent once.
func TestReplyReconcilesOpenDecisionsFirst(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	cfgPath := writeConfig(t, dir, agents)
	deploy := waitingTask(t, agents, demo.Deployer, "deploy 9f3c2e1 to staging", a2a.TaskStateAuthRequired)

	cfg, err := config.Load(cfgPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := cfg.AgentOptions()
	if err != nil {
		t.Fatal(err)
	}
	mgr := a2aclient.New(opts, a2aclient.Options{})
	svc, err := approvals.Open(approvals.Options{JournalPath: cfg.JournalPath, Sender: lostSender{mgr}, SendTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	task, err := mgr.Get(context.Background(), demo.Deployer, deploy, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	fleet := model.NewFleet(model.Options{})
	fleet.Apply([]model.Event{{Kind: model.EventTask, Agent: demo.Deployer, Task: task}})
	d, err := svc.Prepare(svc.ItemFor(fleet.Task(model.TaskKey{Agent: demo.Deployer, ID: deploy})), approvals.Input{Kind: approvals.KindApprove})
	if err != nil {
		t.Fatal(err)
	}
	if out := svc.Send(context.Background(), d); out.Result != approvals.ResultUnknown {
		t.Fatalf("lost send: %s, want unknown", out.Result)
	}
	svc.Close()

	code, out, errOut := runCmd(context.Background(), "reply", "--config", cfgPath, demo.Deployer, string(deploy), "--approve", "--again")
	t.Logf("%d\n%s%s", code, out, errOut)
	if code != exitOK || !strings.Contains(out+errOut, "approve → deployer") {
		t.Fatalf("a2atop reply after an unknown outcome = %d, want it sent", code)
	}
	svc, err = approvals.Open(approvals.Options{JournalPath: cfg.JournalPath, Sender: mgr})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	e, _ := svc.Entry(d.MessageID)
	if e.Result == approvals.ResultUnknown || e.Result == approvals.ResultPending {
		t.Errorf("the lost decision is still %s after the next reply", e.Result)
	}
}
