package demo

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// driver is the planner client: an SDK client that keeps giving the agents
// work at a human pace so every state is on screen within seconds. It
// seeds one of everything at once, then hands out one job per pace tick,
// going round the script. Jobs that end up waiting for a person are skipped
// while their agent already has enough waiting, so the inbox stays
// human-sized.
type driver struct {
	e       *env
	pace    time.Duration
	clients map[string]*lazyClient
	cancels sync.WaitGroup
	onTask  func(agent string, id a2a.TaskID) // Options.OnTask, may be nil

	mu     sync.Mutex
	handed map[string]int // tasks created per agent

	// counters for varied requests; touched only by run's goroutine
	n      int
	legacy []a2a.TaskID // legacy-intake tasks not known to be terminal (0.3 JSON-RPC has no ListTasks)
}

// job is one kind of work the driver hands out.
type job struct {
	agent string
	text  func(d *driver, seed bool) string
	caps  map[string]int // skip while agent has at least this many interrupted tasks
	// cancel: a full-suite run the driver cancels after Timings.CancelAfter
	// (on the seed and every other round; the other rounds run it through).
	cancel bool
}

var (
	goodCommits = []string{"a41c7d0", "c0ffee1", "5be2a9f", "e7d1b04"}
	people      = []string{"Ada Lovelace", "Grace Hopper", "Alan Turing", "Katherine Johnson", "Edsger Dijkstra"}
)

// script is the round the driver goes through, one job per tick.
func script() []job {
	return []job{
		{agent: TestRunner, text: func(*driver, bool) string { return "run the unit tests at " + FailingCommit }},
		{agent: Deployer, text: func(*driver, bool) string { return "deploy " + FailingCommit + " to production" }},
		{agent: CodeReviewer, caps: map[string]int{CodeReviewer: 3},
			text: func(d *driver, _ bool) string { return fmt.Sprintf("review PR #%d", 41+d.n) }},
		{agent: TestRunner, text: func(d *driver, _ bool) string { return "run the unit tests at " + d.good() }},
		{agent: LegacyIntake, caps: map[string]int{LegacyIntake: 2},
			text: func(d *driver, _ bool) string { return "sign up " + people[d.n%len(people)] + " for the beta" }},
		{agent: Deployer, caps: map[string]int{Deployer: 2},
			text: func(d *driver, seed bool) string { return "deploy " + d.commit(seed) + " to staging" }},
		{agent: TestRunner, text: func(*driver, bool) string { return "run the unit tests at " + MissingCommit }},
		{agent: Planner, caps: map[string]int{Planner: 2, Deployer: 3},
			text: func(d *driver, seed bool) string { return "ship " + d.commit(seed) + " to staging" }},
		{agent: TestRunner, cancel: true, text: func(d *driver, _ bool) string { return "run the full suite at " + d.good() }},
		{agent: Deployer, caps: map[string]int{Deployer: 4},
			text: func(d *driver, seed bool) string {
				return fmt.Sprintf("deploy %s to staging with change ticket CHG-%d", d.commit(seed), 2041+d.n)
			}},
	}
}

func newDriver(e *env, pace time.Duration) *driver {
	d := &driver{e: e, pace: pace, clients: map[string]*lazyClient{}, handed: map[string]int{}}
	for name, url := range e.urls {
		d.clients[name] = &lazyClient{url: url}
	}
	return d
}

func (d *driver) good() string { return goodCommits[d.n%len(goodCommits)] }

// commit is the commit for deploys: the seeds' 9f3c2e1 first, then others.
func (d *driver) commit(seed bool) string {
	if seed {
		return FailingCommit
	}
	return d.good()
}

// run seeds, then hands out one job per tick until ctx ends.
func (d *driver) run(ctx context.Context) {
	defer d.cancels.Wait()
	jobs := script()
	for _, j := range jobs {
		d.do(ctx, j, true, true)
	}
	// one full suite that runs its whole minute
	d.do(ctx, job{agent: TestRunner, text: func(*driver, bool) string { return "run the full suite at " + FailingCommit }}, true, false)
	tick := time.NewTicker(d.pace)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		d.n++
		round := i / len(jobs)
		d.do(ctx, jobs[i%len(jobs)], false, round%2 == 1)
	}
}

// do hands out one job unless its caps say enough is waiting.
func (d *driver) do(ctx context.Context, j job, seed, cancelRound bool) {
	ctx, done := context.WithTimeout(ctx, 10*time.Second)
	defer done()
	for agent, limit := range j.caps {
		if n, err := d.waiting(ctx, agent); err != nil || n >= limit {
			d.e.log.Debug("planner client: skipped", "agent", j.agent, "waiting_on", agent, "waiting", n, "err", err)
			return
		}
	}
	text := j.text(d, seed)
	t, err := d.send(ctx, j.agent, text)
	if err != nil {
		d.e.log.Info("planner client: could not hand out work", "agent", j.agent, "text", text, "err", err)
		return
	}
	d.e.log.Debug("planner client: handed out work", "agent", j.agent, "task", t.ID, "text", text)
	d.mu.Lock()
	d.handed[j.agent]++
	d.mu.Unlock()
	if d.onTask != nil {
		d.onTask(j.agent, t.ID)
	}
	if j.agent == LegacyIntake {
		d.legacy = append(d.legacy, t.ID)
	}
	if j.cancel && cancelRound {
		d.cancelLater(t.ID)
	}
}

// handedOut is how many tasks the driver has created on agent.
func (d *driver) handedOut(agent string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.handed[agent]
}

func (d *driver) send(ctx context.Context, agent, text string) (*a2a.Task, error) {
	c, err := d.clients[agent].get(ctx)
	if err != nil {
		return nil, err
	}
	res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text)),
		Config:  &a2a.SendMessageConfig{ReturnImmediately: true},
	})
	if err != nil {
		return nil, err
	}
	t, ok := res.(*a2a.Task)
	if !ok {
		return nil, fmt.Errorf("%s answered with a message, not a task", agent)
	}
	return t, nil
}

// cancelLater cancels a full-suite run after Timings.CancelAfter.
func (d *driver) cancelLater(id a2a.TaskID) {
	d.cancels.Add(1)
	go func() {
		defer d.cancels.Done()
		if !pause(d.e.life, d.e.t.CancelAfter) {
			return
		}
		ctx, done := context.WithTimeout(d.e.life, 10*time.Second)
		defer done()
		c, err := d.clients[TestRunner].get(ctx)
		if err == nil {
			_, err = c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: id})
		}
		if err != nil {
			d.e.log.Info("planner client: cancel failed", "task", id, "err", err)
		}
	}()
}

// waiting counts an agent's interrupted tasks: through ListTasks for the
// 1.0 agents, through GetTask on the tasks it created for the 0.3 one.
func (d *driver) waiting(ctx context.Context, agent string) (int, error) {
	c, err := d.clients[agent].get(ctx)
	if err != nil {
		return 0, err
	}
	if agent == LegacyIntake {
		kept, n := make([]a2a.TaskID, 0, len(d.legacy)), 0
		for _, id := range d.legacy {
			t, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
			if err != nil {
				return 0, err
			}
			if !t.Status.State.Terminal() {
				kept = append(kept, id)
			}
			if t.Status.State == a2a.TaskStateInputRequired {
				n++
			}
		}
		d.legacy = kept
		return n, nil
	}
	n := 0
	for _, s := range []a2a.TaskState{a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired} {
		res, err := c.ListTasks(ctx, &a2a.ListTasksRequest{Status: s, PageSize: 1})
		if err != nil {
			return 0, err
		}
		n += res.TotalSize
	}
	return n, nil
}
