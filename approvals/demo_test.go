package approvals

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"

	"a2atop/demo"
	"a2atop/model"
)

// demoFleet runs the demo agents (no planner client) at test pace, with a
// sender that knows each of them by name through its card (JSON-RPC or
// REST, as the card says).
func demoFleet(t *testing.T) (*sdkSender, *Service) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	f, err := demo.Start(ctx, demo.Options{NoPlanner: true, Timings: demo.Timings{Step: 10 * time.Millisecond, Poll: 20 * time.Millisecond, OutOfBand: 300 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	snd := newSDKSender()
	hc := &http.Client{Transport: &statusRT{}}
	for _, a := range f.Agents() {
		if a.Name == demo.LegacyIntake {
			continue // A2A 0.3: the a2aclient package covers it
		}
		card, err := agentcard.NewResolver(hc).Resolve(ctx, a.URL)
		if err != nil {
			t.Fatal(err)
		}
		c, err := sdk.NewFromCard(ctx, card, sdk.WithJSONRPCTransport(hc), sdk.WithRESTTransport(hc))
		if err != nil {
			t.Fatal(err)
		}
		snd.mu.Lock()
		snd.clients[a.Name] = c
		snd.mu.Unlock()
	}
	svc, err := Open(Options{JournalPath: filepath.Join(t.TempDir(), "journal.jsonl"), Sender: snd, Approver: "ops@test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return snd, svc
}

// demoStart starts a task on a demo agent and waits until cond holds.
func demoStart(t *testing.T, snd *sdkSender, agent, text string, cond func(*a2a.Task) bool) *a2a.Task {
	t.Helper()
	c, _ := snd.client(agent)
	res, err := c.SendMessage(context.Background(), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text)),
		Config: &a2a.SendMessageConfig{ReturnImmediately: true}})
	if err != nil {
		t.Fatalf("%s: %v", agent, err)
	}
	return demoWait(t, snd, agent, res.(*a2a.Task).ID, cond)
}

func demoWait(t *testing.T, snd *sdkSender, agent string, id a2a.TaskID, cond func(*a2a.Task) bool) *a2a.Task {
	t.Helper()
	for range 500 {
		task, err := snd.Get(context.Background(), agent, id, 0, false)
		if err == nil && cond(task) {
			return task
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s task %s never reached the expected state", agent, id)
	return nil
}

func in(states ...a2a.TaskState) func(*a2a.Task) bool {
	return func(t *a2a.Task) bool {
		for _, s := range states {
			if t.Status.State == s {
				return true
			}
		}
		return false
	}
}

// fleetWith applies snapshots to a fresh model fleet, as the watchers would.
func fleetWith(snaps map[string]*a2a.Task) *model.Fleet {
	f := model.NewFleet(model.Options{})
	var batch []model.Event
	for agent, s := range snaps {
		batch = append(batch, model.Event{Kind: model.EventTask, Agent: agent, Source: model.SourcePoll, At: time.Now(), Task: s})
	}
	f.Apply(batch)
	return f
}

func TestDemoFleet(t *testing.T) {
	snd, svc := demoFleet(t)
	ctx := context.Background()
	interrupted := in(a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired)

	t.Run("code-reviewer answered as text and as data", func(t *testing.T) {
		for _, in0 := range []Input{{Kind: KindReply, Text: "compare against main"}, {Kind: KindReply, JSON: `{"branch": "release/1.4"}`}} {
			task := demoStart(t, snd, demo.CodeReviewer, "review PR #42", interrupted)
			f := fleetWith(map[string]*a2a.Task{demo.CodeReviewer: task})
			q := svc.Queue(f, model.SortAge)
			if len(q) != 1 || q[0].Question().Parts[0].Text() != demo.BranchQuestion {
				t.Fatalf("queue = %+v", q)
			}
			d, err := svc.Prepare(q[0], in0)
			if err != nil {
				t.Fatal(err)
			}
			if out := svc.Send(ctx, d); out.Result != ResultAccepted {
				t.Fatalf("%s %v", out.Result, out.Err)
			}
			done := demoWait(t, snd, demo.CodeReviewer, task.ID, in(a2a.TaskStateCompleted))
			if !holds(done, d.MessageID) || done.ContextID != task.ContextID {
				t.Fatal("the reply is not in the task's history on the same context")
			}
		}
	})

	t.Run("deploy approved proceeds, denied fails", func(t *testing.T) {
		for _, tc := range []struct {
			in   Input
			want a2a.TaskState
		}{{Input{Kind: KindApprove}, a2a.TaskStateCompleted}, {Input{Kind: KindDeny, Reason: "staging is frozen"}, a2a.TaskStateFailed}} {
			task := demoStart(t, snd, demo.Deployer, "deploy 9f3c2e1 to staging", in(a2a.TaskStateAuthRequired))
			q := svc.Queue(fleetWith(map[string]*a2a.Task{demo.Deployer: task}), model.SortAge)
			d, err := svc.Prepare(q[0], tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if out := svc.Send(ctx, d); out.Result != ResultAccepted {
				t.Fatalf("%s: %s %v", tc.in.Kind, out.Result, out.Err)
			}
			if got := demoWait(t, snd, demo.Deployer, task.ID, func(t *a2a.Task) bool { return t.Status.State.Terminal() }); got.Status.State != tc.want {
				t.Fatalf("%s: task is %s, want %s", tc.in.Kind, got.Status.State, tc.want)
			}
		}
	})

	t.Run("planner chain resolved by approving the leaf", func(t *testing.T) {
		plan := demoStart(t, snd, demo.Planner, "ship 9f3c2e1 to staging", func(t *a2a.Task) bool {
			return t.Status.State == a2a.TaskStateAuthRequired && t.Status.Message != nil && len(t.Status.Message.ReferenceTasks) > 0
		})
		depID := plan.Status.Message.ReferenceTasks[0]
		dep := demoWait(t, snd, demo.Deployer, depID, in(a2a.TaskStateAuthRequired))
		q := svc.Queue(fleetWith(map[string]*a2a.Task{demo.Planner: plan, demo.Deployer: dep}), model.SortAge)
		if len(q) != 2 || q[0].Task.Key.Agent != demo.Planner || q[0].Actionable || !q[1].Actionable || len(q[0].Chain) != 2 {
			t.Fatalf("chain = %+v", q)
		}
		if _, err := svc.Prepare(q[0], Input{Kind: KindApprove}); !errors.Is(err, ErrNotActionable) {
			t.Fatalf("approving the root: %v", err)
		}
		d, err := svc.Prepare(q[1], Input{Kind: KindApprove})
		if err != nil {
			t.Fatal(err)
		}
		if out := svc.Send(ctx, d); out.Result != ResultAccepted {
			t.Fatalf("%s %v", out.Result, out.Err)
		}
		if got := demoWait(t, snd, demo.Planner, plan.ID, func(t *a2a.Task) bool { return t.Status.State != a2a.TaskStateAuthRequired }); got.Status.State == a2a.TaskStateAuthRequired {
			t.Fatal("the root did not move on")
		}
	})

	t.Run("out-of-band approval while deciding", func(t *testing.T) {
		task := demoStart(t, snd, demo.Deployer, "deploy 9f3c2e1 to staging with change ticket CHG-2041", in(a2a.TaskStateAuthRequired))
		q := svc.Queue(fleetWith(map[string]*a2a.Task{demo.Deployer: task}), model.SortAge)
		d, err := svc.Prepare(q[0], Input{Kind: KindDeny, Reason: "wait for the freeze to end"})
		if err != nil {
			t.Fatal(err)
		}
		demoWait(t, snd, demo.Deployer, task.ID, func(t *a2a.Task) bool { return t.Status.State != a2a.TaskStateAuthRequired })
		out := svc.Send(ctx, d)
		if out.Result != ResultRefused || (out.Problem != ProblemMoved && out.Problem != ProblemTaskEnded) {
			t.Fatalf("%s/%s %v", out.Result, out.Problem, out.Err)
		}
	})
}
