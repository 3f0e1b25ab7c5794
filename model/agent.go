package model

import (
	"slices"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// applyGone marks a task the agent says it no longer knows. A task we
// do not hold is not created just to be marked gone.
func (f *Fleet) applyGone(ev *Event) {
	t := f.find(ev.Agent, ev.Task.ID)
	if t == nil || t.Gone {
		return
	}
	if !ev.At.IsZero() {
		t.LastHeard = ev.At
	}
	t.Gone = true
	f.version++
	f.changes.add(t)
}

// applyHealth records the agent's connection state and marks its tasks
// stale while it cannot be reached; the tasks' data never changes.
func (f *Fleet) applyHealth(a *Agent, h HealthUpdate) {
	if a.Health == h {
		return
	}
	if a.Health.State != h.State { // the rows say "stale: agent STATE"
		for _, t := range a.held {
			f.changes.add(t)
		}
	}
	a.Health = h
	f.version++
	var stale bool
	switch {
	case h.State == HealthBackoff || h.State == HealthUnreachable || h.State == HealthUnauthorized:
		stale = true
	case h.State.Up():
		stale = false
	default:
		return // connecting: we do not know yet; leave the marks as they are
	}
	for _, t := range a.held {
		t.Stale = stale
	}
}

// applyInfo records what the agent's card says.
func (f *Fleet) applyInfo(a *Agent, info AgentInfo) {
	if a.Info == info {
		return
	}
	a.Info = info
	if a.URL == "" {
		a.URL = info.URL
	}
	f.version++
}

// stale reports whether the agent's tasks are shown as stale.
func (a *Agent) stale() bool {
	s := a.Health.State
	return s == HealthBackoff || s == HealthUnreachable || s == HealthUnauthorized
}

// AgentStates returns the distinct states of the tasks the named agent
// holds, in no order (a list's filter asks which agents hold a task in a
// state). It costs the agent's tasks.
func (f *Fleet) AgentStates(name string) []a2a.TaskState {
	a := f.byName[name]
	if a == nil {
		return nil
	}
	var out []a2a.TaskState
	for _, t := range a.held {
		if !slices.Contains(out, t.State) {
			out = append(out, t.State)
		}
	}
	return out
}
