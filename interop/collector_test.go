package interop

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient"
	"a2atop/model"
)

// seenTask is what the collector knows of one task from a2aclient events.
type seenTask struct {
	State   a2a.TaskState
	Sources map[model.Source]int              // task snapshots and status events per source
	States  map[a2a.TaskState]string          // state -> first source it was seen from
	Via     map[a2a.TaskState]map[string]bool // state -> every source it was seen from
	Task    *a2a.Task                         // latest snapshot
	Chunks  int                               // artifact update events
}

// collector runs an a2aclient.Manager and folds its events into a view the
// tests can wait on.
type collector struct {
	M      *a2aclient.Manager
	mu     sync.Mutex
	tasks  map[string]map[a2a.TaskID]*seenTask
	health map[string]model.HealthUpdate
	info   map[string]model.AgentInfo
	bad    []string // health errors seen
	// Fleet is a model.Fleet fed with every event, as the UI would; read
	// it only inside with().
	Fleet *model.Fleet
	// ptrs are the task pointers events carried (before the copy below).
	ptrs map[*a2a.Task]bool
	// stop ends the Manager's Run and waits for it (also at the test's end).
	stop func()
}

// with runs f with the collector's lock held (for reading Fleet).
func (c *collector) with(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f()
}

// runManager starts a Manager for agents and stops it when the test ends.
func runManager(t *testing.T, agents ...a2aclient.AgentOptions) *collector {
	t.Helper()
	return runManagerWith(t, a2aclient.New(agents, a2aclient.Options{}), agents...)
}

// runManagerWith runs m, built for agents, as runManager does.
func runManagerWith(t *testing.T, m *a2aclient.Manager, agents ...a2aclient.AgentOptions) *collector {
	t.Helper()
	c := newCollector()
	c.M = m
	for _, a := range agents {
		c.Fleet.AddAgent(a.Name, a.URL)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.M.Run(ctx); close(done) }()
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for {
			select {
			case ev := <-c.M.Events():
				c.apply(ev)
			case <-done:
				return
			}
		}
	}()
	var once sync.Once
	c.stop = func() {
		once.Do(func() {
			start := time.Now()
			cancel()
			<-done
			<-drained
			if d := time.Since(start); d > time.Second {
				t.Logf("a2aclient.Manager.Run took %v to return after cancel", d)
			}
		})
	}
	t.Cleanup(c.stop)
	return c
}

// newCollector is a collector with no Manager: apply feeds it.
func newCollector() *collector {
	return &collector{
		tasks:  map[string]map[a2a.TaskID]*seenTask{},
		health: map[string]model.HealthUpdate{},
		info:   map[string]model.AgentInfo{},
		Fleet:  model.NewFleet(model.Options{}),
		ptrs:   map[*a2a.Task]bool{},
	}
}

func (c *collector) apply(ev model.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ev.Task != nil {
		c.ptrs[ev.Task] = true
	}
	// The Fleet takes the events as they come, as the dashboard does; with
	// approvals reading Reply's result at the same time, -race checks that
	// a2aclient does not share what it returns (TestReplyResultNotShared).
	c.Fleet.Apply([]model.Event{ev})
	switch ev.Kind {
	case model.EventHealth:
		c.health[ev.Agent] = *ev.Health
		if ev.Health.Err != "" {
			c.bad = append(c.bad, ev.Health.State.String()+": "+ev.Health.Err)
		}
	case model.EventAgent:
		c.info[ev.Agent] = *ev.Info
	case model.EventTask:
		st := c.task(ev.Agent, ev.Task.ID)
		st.Task = ev.Task
		c.state(st, ev.Task.Status.State, ev.Source)
	case model.EventStatus:
		st := c.task(ev.Agent, ev.Status.TaskID)
		c.state(st, ev.Status.Status.State, ev.Source)
	case model.EventArtifact:
		c.task(ev.Agent, ev.Artifact.TaskID).Chunks++
	}
}

func (c *collector) task(agent string, id a2a.TaskID) *seenTask {
	if c.tasks[agent] == nil {
		c.tasks[agent] = map[a2a.TaskID]*seenTask{}
	}
	st := c.tasks[agent][id]
	if st == nil {
		st = &seenTask{Sources: map[model.Source]int{}, States: map[a2a.TaskState]string{}, Via: map[a2a.TaskState]map[string]bool{}}
		c.tasks[agent][id] = st
	}
	return st
}

func (c *collector) state(st *seenTask, s a2a.TaskState, src model.Source) {
	s = model.NormalizeState(s)
	st.State = s
	st.Sources[src]++
	if _, ok := st.States[s]; !ok {
		st.States[s] = src.String()
		st.Via[s] = map[string]bool{}
	}
	st.Via[s][src.String()] = true
}

// wait polls cond (under the lock) until it holds or 30s pass.
func (c *collector) wait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		c.mu.Lock()
		ok := cond()
		c.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; seen: %s", what, c.describe())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitState waits until agent's task id is in state s and returns the
// source the state was first seen from.
func (c *collector) waitState(t *testing.T, agent string, id a2a.TaskID, s a2a.TaskState) string {
	t.Helper()
	var src string
	c.wait(t, fmt.Sprintf("%s task %s in %s", agent, id, s), func() bool {
		st := c.tasks[agent][id]
		if st == nil || st.State != s {
			return false
		}
		src = st.States[s]
		return true
	})
	return src
}

// seenVia reports whether agent's task id was seen in state s from src.
func (c *collector) seenVia(agent string, id a2a.TaskID, s a2a.TaskState, src string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.tasks[agent][id]
	return st != nil && st.Via[s][src]
}

func (c *collector) healthOf(agent string) model.HealthUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.health[agent]
}

func (c *collector) infoOf(agent string) model.AgentInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.info[agent]
}

func (c *collector) healthErrors() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.bad...)
}

func (c *collector) describe() string {
	var b strings.Builder
	for agent, tasks := range c.tasks {
		ids := make([]string, 0, len(tasks))
		for id := range tasks {
			ids = append(ids, string(id))
		}
		sort.Strings(ids)
		for _, id := range ids {
			st := tasks[a2a.TaskID(id)]
			fmt.Fprintf(&b, "\n  %s %s %s %v", agent, id, st.State, st.States)
		}
	}
	for agent, h := range c.health {
		fmt.Fprintf(&b, "\n  health %s: %s %q streams=%d listing=%v", agent, h.State, h.Err, h.Streams, h.Listing)
	}
	return b.String()
}

// sharedWithEvents reports whether events carried this very pointer.
func (c *collector) sharedWithEvents(t *a2a.Task) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ptrs[t]
}
