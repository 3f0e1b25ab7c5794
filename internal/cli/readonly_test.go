package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient"
	"a2atop/approvals"
	"a2atop/demo"
	"a2atop/internal/config"
	"a2atop/model"
)

// An approval sent from the inbox to an agent configured read_only = true
// is refused as read-only, never sent, and not left as an unknown outcome
// for Reconcile; the other agents take replies as usual.
func TestReadOnlyAgentRefusesApprovals(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	deploy := waitingTask(t, agents, demo.Deployer, "deploy 9f3c2e1 to staging", a2a.TaskStateAuthRequired)
	var doc string
	for _, a := range agents {
		doc += "[[agent]]\nname = \"" + a.Name + "\"\nurl = \"" + a.URL + "\"\n"
		if a.Name == demo.Deployer {
			doc += "read_only = true\n"
		}
	}
	path := filepath.Join(dir, "ro.toml")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := newManager(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := approvals.Open(approvals.Options{JournalPath: filepath.Join(dir, "journal.jsonl"),
		Sender: mgr, SendTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	task, err := mgr.Get(ctx, demo.Deployer, deploy, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	fleet := model.NewFleet(model.Options{})
	fleet.Apply([]model.Event{{Kind: model.EventTask, Agent: demo.Deployer, Source: model.SourcePoll, At: time.Now(), Task: task}})
	d, err := svc.Prepare(svc.ItemFor(fleet.Task(model.TaskKey{Agent: demo.Deployer, ID: deploy})), approvals.Input{Kind: approvals.KindApprove})
	if err != nil {
		t.Fatal(err)
	}
	out := svc.Send(ctx, d)
	if out.Result != approvals.ResultRefused || out.Problem != approvals.ProblemReadOnly || !errors.Is(out.Err, a2aclient.ErrReadOnly) {
		t.Errorf("outcome = %s / %s / %v, want refused as read-only", out.Result, out.Problem, out.Err)
	}
	if now, err := mgr.Get(ctx, demo.Deployer, deploy, 0, false); err != nil || now.Status.State != a2a.TaskStateAuthRequired {
		t.Errorf("the read-only agent's task moved: %v, %v", now, err)
	}

	// --read-only (the whole run) makes every agent read-only at the
	// Manager, the one place that refuses a send.
	cfg.ReadOnly = true
	all, err := newManager(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range cfg.Agents {
		msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello"))
		if _, err := all.Reply(ctx, a.Name, msg); !errors.Is(err, a2aclient.ErrReadOnly) {
			t.Errorf("--read-only: Reply to %s = %v, want a2aclient.ErrReadOnly", a.Name, err)
		}
		if _, err := all.Cancel(ctx, a.Name, deploy); !errors.Is(err, a2aclient.ErrReadOnly) {
			t.Errorf("--read-only: Cancel on %s = %v, want a2aclient.ErrReadOnly", a.Name, err)
		}
	}
}
