package demo

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/log"
)

// plannerAgent ships a commit: it asks the deployer (as an A2A client) for
// the deploy and, while the deployer waits for approval, waits itself in
// AUTH_REQUIRED with referenceTaskIds naming the deployer's task.
type plannerAgent struct {
	e        *env
	gates    *gates
	deployer *lazyClient
}

func newPlannerAgent(e *env) http.Handler {
	card := newCard(Planner, "Ships a commit by asking the deployer; waits on the deployer's approval.",
		e.urls[Planner], a2a.TransportProtocolJSONRPC, a2a.Version, true,
		a2a.AgentSkill{ID: "ship", Name: "Ship", Description: "Ships a commit to staging through the deployer.",
			Tags: []string{"release"}, Examples: []string{"ship 9f3c2e1 to staging"}})
	p := &plannerAgent{e: e, gates: newGates(), deployer: &lazyClient{url: e.urls[Deployer]}}
	store := newStore()
	return mount(e, agentParts{exec: p, store: store, card: card, inactivity: e.waitingInactivity(),
		extra: []a2asrv.CallInterceptor{&handoff{agent: Planner, gates: p.gates, store: store}}})
}

// Execute implements a2asrv.AgentExecutor.
func (p *plannerAgent) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield yieldFn) {
		if ec.StoredTask != nil {
			yield(status(ec, a2a.TaskStateRejected, "This task takes no follow-up messages; start a new one."), nil)
			return
		}
		if !yield(submitted(ec), nil) {
			return
		}
		r := parseDeploy(ec.Message)
		if r.commit == "" || r.env == "" {
			yield(status(ec, a2a.TaskStateRejected, `Ask me to ship a commit, e.g. "ship 9f3c2e1 to staging".`), nil)
			return
		}
		if !yield(status(ec, a2a.TaskStateWorking, fmt.Sprintf("asking the deployer to deploy %s to %s", r.commit, r.env)), nil) {
			return
		}
		dt, err := p.requestDeploy(ctx, r)
		if err != nil {
			yield(status(ec, a2a.TaskStateFailed, err.Error()), nil)
			return
		}
		p.follow(ctx, ec, r, dt, yield)
	}
}

func (p *plannerAgent) requestDeploy(ctx context.Context, r deployRequest) (*a2a.Task, error) {
	c, err := p.deployer.get(ctx)
	if err != nil {
		return nil, fmt.Errorf("could not reach the deployer: %v", err)
	}
	text := fmt.Sprintf("deploy %s to %s", r.commit, r.env)
	res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text)),
		Config:  &a2a.SendMessageConfig{ReturnImmediately: true},
	})
	if err != nil {
		return nil, fmt.Errorf("the deployer refused %q: %v", text, err)
	}
	t, ok := res.(*a2a.Task)
	if !ok {
		return nil, fmt.Errorf("the deployer answered %q with a message, not a task", text)
	}
	return t, nil
}

// follow mirrors the deployer's task: AUTH_REQUIRED while it waits for
// approval, WORKING once approved, COMPLETED or FAILED when it ends. It
// polls GetTask every Timings.Poll and rides out deployer outages.
func (p *plannerAgent) follow(ctx context.Context, ec *a2asrv.ExecutorContext, r deployRequest, dt *a2a.Task, yield yieldFn) {
	defer p.gates.remove(ec.TaskID)
	last := a2a.TaskStateSubmitted
	ref := func(state a2a.TaskState, text string) *a2a.TaskStatusUpdateEvent {
		ev := status(ec, state, text, map[string]any{"waitingOn": map[string]any{"agent": Deployer, "taskId": string(dt.ID)}})
		ev.Status.Message.ReferenceTasks = []a2a.TaskID{dt.ID}
		return ev
	}
	for t := dt; ; {
		state := t.Status.State
		switch {
		case state == a2a.TaskStateCompleted:
			yield(ref(a2a.TaskStateCompleted, fmt.Sprintf("Shipped %s to %s (deployer task %s).", r.commit, r.env, dt.ID)), nil)
			return
		case state.Terminal():
			yield(ref(a2a.TaskStateFailed, fmt.Sprintf("The deploy of %s ended %s on the deployer: %s", r.commit, state, textOf(t.Status.Message))), nil)
			return
		case state == a2a.TaskStateAuthRequired && last != state:
			p.gates.redirectTo(ec.TaskID, ec.ContextID, fmt.Sprintf(
				"planner task %s waits on deployer task %s; send the approval or denial to that task", ec.TaskID, dt.ID))
			if !yield(ref(a2a.TaskStateAuthRequired, fmt.Sprintf("waiting on deployer approval of %s to %s (deployer task %s)", r.commit, r.env, dt.ID)), nil) {
				return
			}
		case state == a2a.TaskStateWorking && last == a2a.TaskStateAuthRequired:
			p.gates.remove(ec.TaskID)
			if !yield(ref(a2a.TaskStateWorking, fmt.Sprintf("the deployer is rolling out %s to %s", r.commit, r.env)), nil) {
				return
			}
		}
		last = state
		select {
		case <-ctx.Done():
			return
		case <-p.e.life.Done():
			yield(ref(a2a.TaskStateFailed, "The planner shut down while waiting on the deployer."), nil)
			return
		case <-time.After(p.e.t.Poll):
		}
		next, err := p.check(ctx, dt.ID)
		if err != nil {
			log.Debug(ctx, "planner: deployer task unreadable, retrying", "task", dt.ID, "err", err)
			continue
		}
		t = next
	}
}

func (p *plannerAgent) check(ctx context.Context, id a2a.TaskID) (*a2a.Task, error) {
	c, err := p.deployer.get(ctx)
	if err != nil {
		return nil, err
	}
	zero := 0
	return c.GetTask(ctx, &a2a.GetTaskRequest{ID: id, HistoryLength: &zero})
}

// Cancel implements a2asrv.AgentExecutor: the planner's task ends CANCELED
// and the deployer task it waits on is canceled too. CANCELED is written
// first: canceling the deployer first would let the running execution see
// the deployer task end and finish the planner task FAILED before the
// cancel lands.
func (p *plannerAgent) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield yieldFn) {
		var leaf a2a.TaskID
		if t := ec.StoredTask; t != nil && t.Status.Message != nil && len(t.Status.Message.ReferenceTasks) > 0 {
			leaf = t.Status.Message.ReferenceTasks[0]
		}
		if leaf == "" {
			yield(status(ec, a2a.TaskStateCanceled, "Canceled on request."), nil)
			return
		}
		if !yield(status(ec, a2a.TaskStateCanceled, fmt.Sprintf("Canceled on request; deployer task %s is canceled with it.", leaf)), nil) {
			return
		}
		cctx, done := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer done()
		c, err := p.deployer.get(cctx)
		if err == nil {
			_, err = c.CancelTask(cctx, &a2a.CancelTaskRequest{ID: leaf})
		}
		if err != nil {
			log.Warn(ctx, "planner: could not cancel the deployer task", "task", leaf, "err", err)
		}
	}
}
