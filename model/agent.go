package model

import (
	"slices"
	"strconv"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// applyGone marks a task the agent says it no longer knows. A task we
// do not hold is not created just to be marked gone. A gone task leaves
// the open panes (the inbox too: there is nothing left to answer) for
// the terminal one, where its row says gone; its last state is kept. It
// counts against MaxTerminalPerAgent as a finished one does, so an agent
// that keeps losing tasks does not grow the fleet.
func (f *Fleet) applyGone(ev *Event) {
	t := f.find(ev.Agent, ev.Task.ID)
	if t == nil || t.Gone {
		return
	}
	if !ev.At.IsZero() {
		t.LastHeard = ev.At
	}
	t.Gone = true
	f.setClass(t, ClassTerminal)
	if t.heapIdx < 0 {
		f.addTerminal(t) // it will not change again: retention counts it as finished
	}
	f.version++
	f.changes.add(t)
}

// setClass moves t to class c: its agent's counts, Entered/Left, and
// the pane indexes at the next query (t's data does not change).
func (f *Fleet) setClass(t *Task, c Class) {
	if t.Class == c {
		return
	}
	f.touch(t)
	a := t.agent
	a.Counts[t.Class]--
	a.Counts[c]++
	t.Class = c
	if !t.dirty {
		t.dirty = true
		f.dirty = append(f.dirty, t)
	}
}

// applyHealth records the agent's connection state and marks its tasks
// stale while it cannot be reached; the tasks' data never changes.
func (f *Fleet) applyHealth(a *Agent, h HealthUpdate) {
	if a.Health == h {
		return
	}
	moved := a.Health
	moved.LastSuccess = h.LastSuccess
	if a.Health.State != h.State || a.Health.HubDown != h.HubDown { // the rows say "stale: agent STATE" or "stale"
		for _, t := range a.held {
			f.changes.add(t)
		}
	}
	a.Health = h
	if moved == h {
		// Only the time of the last success moved, as after every good
		// sweep: it is shown as an age, which the clock redraws anyway,
		// so an idle fleet of many agents does not redraw at every sweep.
		return
	}
	f.version++
	var stale bool
	switch {
	case h.HubDown || h.State == HealthBackoff || h.State == HealthUnreachable || h.State == HealthUnauthorized:
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

// TerminalCount returns the terminal tasks the fleet holds and how many
// its agents hold in all, as they told (HealthUpdate.TerminalTotal; an
// agent that did not say counts what is held), so the header can say
// "terminal 1,004 of 97,000" when retention left tasks out.
func (f *Fleet) TerminalCount() (held, total int) {
	for _, a := range f.agents {
		n := a.Counts[ClassTerminal]
		held += n
		total += max(n, a.Health.TerminalTotal)
	}
	return held, total
}

// AgentNote is the note the agents view shows on a's row when it has no
// error: the watcher's (HealthUpdate.Note), else that details of its
// tasks were trimmed to MaxAgentBytes or to its share of MaxFleetBytes; "" when there is none.
func (f *Fleet) AgentNote(a *Agent) string {
	switch {
	case a.Health.Note != "":
		return a.Health.Note
	case a.Trimmed > 0:
		tasks := " tasks"
		if a.Trimmed == 1 {
			tasks = " task"
		}
		if a.shared {
			return "details of " + strconv.Itoa(a.Trimmed) + tasks + " trimmed: the agents' task data passed " +
				byteSize(f.opts.MaxFleetBytes) + " together, and this agent held more than its share"
		}
		return "details of " + strconv.Itoa(a.Trimmed) + tasks + " trimmed: the agent's task data passed " + byteSize(f.opts.MaxAgentBytes)
	}
	return ""
}

// byteSize writes n bytes as "64 MiB", "512 KiB" or "100 bytes".
func byteSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + " KiB"
	}
	return strconv.Itoa(n) + " bytes"
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
