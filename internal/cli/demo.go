package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient"
	"a2atop/demo"
	"a2atop/internal/config"
)

// runDemo implements `a2atop demo [--agents-only] [--hub [--four-eyes]] [--pace D] [--base-port N] [--read-only]`:
// the five demo agents on 127.0.0.1, and the dashboard on them unless
// --agents-only, which prints "NAME URL" per agent and serves until
// SIGINT/SIGTERM.
func runDemo(ctx context.Context, args []string, st Streams) int {
	o := newOptions("demo", st)
	o.readOnlyFlag()
	agentsOnly := o.fs.Bool("agents-only", false, `start only the agents, print "NAME URL" per agent, serve until interrupted`)
	pace := o.fs.Duration("pace", demo.DefaultPace, "how often the demo's planner client hands out new work")
	basePort := o.fs.Int("base-port", 0, "listen on 127.0.0.1 ports `N`..N+4 instead of ports the OS chooses, so the agents keep their URLs across restarts")
	withHub := o.fs.Bool("hub", false, "run a hub (a2atop serve) over the fleet with two operators, alice and bob, open alice's dashboard on it and print the command for bob's")
	fourEyes := o.fs.Bool("four-eyes", false, "with --hub: the deployer's approvals take two votes (alice's and bob's), each with a reason")
	rest, err := o.parse(args)
	if err != nil {
		return flagStatus(err)
	}
	if len(rest) > 0 {
		return o.failf(exitUsage, "unexpected argument %q", rest[0])
	}
	if *agentsOnly && *withHub {
		return o.failf(exitUsage, "--agents-only and --hub: choose one (--hub opens a dashboard)")
	}
	if *fourEyes && !*withHub {
		return o.failf(exitUsage, "--four-eyes needs --hub: the two votes are alice's and bob's")
	}
	if *pace <= 0 {
		return o.failf(exitUsage, "--pace must be positive, like 4s")
	}
	cfg := config.Default()
	cfg.ReadOnly = o.readOnly
	cfg.Views = demoViews
	s := o.open(cfg)
	defer s.Close()

	relay := &taskRelay{agent: demo.LegacyIntake}
	// With a hub, the 1.0 agents push their tasks' updates to it.
	fleet, err := demo.Start(ctx, demo.Options{Pace: *pace, Logger: s.log, OnTask: relay.task, BasePort: *basePort, Push: *withHub})
	if err != nil {
		return o.failf(exitFailed, "%v", err)
	}
	defer fleet.Close()
	if *agentsOnly {
		return serveAgents(ctx, o, fleet)
	}

	// The demo's decisions go to a journal of their own, not the real one.
	dir, err := os.MkdirTemp("", "a2atop-demo-")
	if err != nil {
		return o.failf(exitFailed, "%v", err)
	}
	defer os.RemoveAll(dir)
	cfg.JournalPath = filepath.Join(dir, "journal.jsonl")
	s.journalNote = "temporary: the demo's own journal, deleted when the demo exits (" + cfg.JournalPath + ")"
	for _, a := range fleet.Agents() {
		cfg.Agents = append(cfg.Agents, config.Agent{Name: a.Name, URL: a.URL})
	}
	if err := cfg.Validate(); err != nil {
		return o.failf(exitFailed, "%v", err)
	}
	if *withHub {
		return demoHub(ctx, s, dir, relay, *fourEyes)
	}
	return dashboard(ctx, s, relay.attach)
}

// demoViews are the demo's saved views, so that the tabs, 5 and 6 and
// :view have something to open: the deployer's tasks by state, and
// every task waiting on a person, the oldest first.
var demoViews = []config.View{
	{Name: "deploys", Filter: "agent:deployer", Sort: "state", Columns: []string{"agent", "id", "state", "age", "status"}},
	{Name: "waiting", Filter: "class:interrupted", Sort: "age desc"},
}

// serveAgents prints the agents and blocks until ctx ends, then closes
// the fleet.
func serveAgents(ctx context.Context, o *options, fleet *demo.Fleet) int {
	for _, a := range fleet.Agents() {
		fmt.Fprintf(o.st.Out, "%s %s\n", a.Name, a.URL)
	}
	fmt.Fprintf(o.st.Err, "%s: serving the agents above; press Ctrl+C to stop\n", o.name)
	<-ctx.Done()
	start := time.Now()
	if err := fleet.Close(); err != nil {
		return o.failf(exitFailed, "shutting down: %v", err)
	}
	fmt.Fprintf(o.st.Err, "%s: stopped (%s)\n", o.name, time.Since(start).Round(time.Millisecond))
	return exitOK
}

// taskRelay hands the ids of tasks the demo's planner client creates on
// one agent to the manager, which cannot list them: legacy-intake speaks
// A2A 0.3 JSON-RPC, which has no ListTasks. Ids that arrive before the
// manager exists are kept until attach. Safe for concurrent use.
type taskRelay struct {
	agent   string
	mu      sync.Mutex
	mgr     *a2aclient.Manager
	pending []a2a.TaskID
}

// task is demo.Options.OnTask.
func (r *taskRelay) task(agent string, id a2a.TaskID) {
	if agent != r.agent {
		return // the other demo agents list their tasks
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mgr == nil {
		r.pending = append(r.pending, id)
		return
	}
	r.mgr.Watch(agent, id)
}

// attach starts handing ids to mgr, beginning with those kept so far.
func (r *taskRelay) attach(mgr *a2aclient.Manager) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mgr = mgr
	for _, id := range r.pending {
		mgr.Watch(r.agent, id)
	}
	r.pending = nil
}
