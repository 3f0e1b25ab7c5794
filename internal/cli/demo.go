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

// runDemo implements `a2atop demo [--agents-only] [--pace D] [--base-port N] [--read-only]`:
// the five demo agents on 127.0.0.1, and the dashboard on them unless
// --agents-only, which prints "NAME URL" per agent and serves until
// SIGINT/SIGTERM.
func runDemo(ctx context.Context, args []string, st Streams) int {
	fs := newFlags("demo", st)
	agentsOnly := fs.Bool("agents-only", false, `start only the agents, print "NAME URL" per agent, serve until interrupted`)
	pace := fs.Duration("pace", demo.DefaultPace, "how often the demo's planner client hands out new work")
	readOnly := fs.Bool("read-only", false, "hide every action that writes to an agent")
	basePort := fs.Int("base-port", 0, "listen on 127.0.0.1 ports `N`..N+4 instead of ports the OS chooses, so the agents keep their URLs across restarts")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return flagStatus(err)
	}
	if len(rest) > 0 {
		fmt.Fprintf(st.Err, "a2atop demo: unexpected argument %q\n", rest[0])
		return exitUsage
	}
	if *pace <= 0 {
		fmt.Fprintln(st.Err, "a2atop demo: --pace must be positive, like 4s")
		return exitUsage
	}
	cfg := config.Default()
	cfg.ReadOnly = *readOnly
	log, closeLog := openLog(cfg.LogPath, "demo", st)
	defer closeLog()

	relay := &taskRelay{agent: demo.LegacyIntake}
	fleet, err := demo.Start(ctx, demo.Options{Pace: *pace, Logger: log, OnTask: relay.task, BasePort: *basePort})
	if err != nil {
		fmt.Fprintf(st.Err, "a2atop demo: %v\n", err)
		return exitFailed
	}
	defer fleet.Close()
	if *agentsOnly {
		return serveAgents(ctx, fleet, st)
	}

	// The demo's decisions go to a journal of their own, not the real one.
	dir, err := os.MkdirTemp("", "a2atop-demo-")
	if err != nil {
		fmt.Fprintf(st.Err, "a2atop demo: %v\n", err)
		return exitFailed
	}
	defer os.RemoveAll(dir)
	cfg.JournalPath = filepath.Join(dir, "journal.jsonl")
	for _, a := range fleet.Agents() {
		cfg.Agents = append(cfg.Agents, config.Agent{Name: a.Name, URL: a.URL})
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(st.Err, "a2atop demo: %v\n", err)
		return exitFailed
	}
	return dashboard(ctx, cfg, "demo", st, relay.attach)
}

// serveAgents prints the agents and blocks until ctx ends, then closes
// the fleet.
func serveAgents(ctx context.Context, fleet *demo.Fleet, st Streams) int {
	for _, a := range fleet.Agents() {
		fmt.Fprintf(st.Out, "%s %s\n", a.Name, a.URL)
	}
	fmt.Fprintln(st.Err, "a2atop demo: serving the agents above; press Ctrl+C to stop")
	<-ctx.Done()
	start := time.Now()
	if err := fleet.Close(); err != nil {
		fmt.Fprintf(st.Err, "a2atop demo: shutting down: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(st.Err, "a2atop demo: stopped (%s)\n", time.Since(start).Round(time.Millisecond))
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
