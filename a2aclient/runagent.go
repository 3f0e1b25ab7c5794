package a2aclient

import (
	"context"
	"fmt"
	"maps"
	"sync"

	"a2atop/model"
)

// RunAgent watches one agent until ctx ends, and returns when its
// watcher has stopped: what Run does for every agent, for a hub of a
// team that watches only the agents it holds a lease on. A watcher runs
// once at a time (a second RunAgent while one runs is an error); run
// again after a stop, its first sweep is a full one that reports every
// task again (a resync of whoever applies the events), finished ones
// too. Get, Reply and Cancel work whether it runs or not.
func (m *Manager) RunAgent(ctx context.Context, agent string) error {
	w, err := m.watcher(agent)
	if err != nil {
		return err
	}
	if !w.running.CompareAndSwap(false, true) {
		return fmt.Errorf("a2aclient: %s is watched already", agent)
	}
	defer w.running.Store(false)
	if w.ran.Swap(true) {
		w.resyncOwed()
	}
	w.run(ctx)
	w.ctxp.Store(nil) // emits from Get and Cancel wait no longer on a context that has ended
	return nil
}

// Resync makes the agent's watcher report everything again: the agent's
// card and health now, and every task at its next sweep, which comes at
// once (a full one, finished tasks too). For a hub that joined a team
// whose other hubs watch the agents: its fleet fills from what they
// report. It does nothing for an agent that is not watched now.
func (m *Manager) Resync(agent string) {
	w := m.watchers[agent]
	if w == nil || !w.running.Load() {
		return
	}
	w.resyncOwed()
	w.mu.Lock()
	info, health := w.info, w.health
	w.mu.Unlock()
	if info != nil {
		w.emit(model.Event{Kind: model.EventAgent, Info: info})
	}
	w.emit(model.Event{Kind: model.EventHealth, Health: &health})
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// resyncOwed makes the next sweep a full one that reports every task
// again, finished ones too.
func (w *watcher) resyncOwed() {
	w.mu.Lock()
	w.forceFull = true
	w.listed.terminalOwed = true
	w.epoch++
	w.mu.Unlock()
}

// Calls is how many requests of each operation (ListTasks, GetTask,
// SubscribeToTask, SendMessage, ...) this Manager has made to the agent
// since it was built, retries by the transport aside.
func (m *Manager) Calls(agent string) map[string]uint64 {
	w := m.watchers[agent]
	if w == nil {
		return nil
	}
	return w.calls.snapshot()
}

// callCounts counts a watcher's requests by operation.
type callCounts struct {
	mu sync.Mutex
	n  map[string]uint64
}

func (c *callCounts) add(op string) {
	c.mu.Lock()
	if c.n == nil {
		c.n = map[string]uint64{}
	}
	c.n[op]++
	c.mu.Unlock()
}

func (c *callCounts) snapshot() map[string]uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.n)
}
