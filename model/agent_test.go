package model

import (
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

func TestTerminalCount(t *testing.T) {
	f := NewFleet(Options{MaxTerminalPerAgent: 2})
	h := &HealthUpdate{State: HealthSweeping, TerminalTotal: 97000}
	f.Apply([]Event{{Kind: EventHealth, Agent: "big", Health: h},
		snap("big", "t1", a2a.TaskStateCompleted, 1), snap("big", "t2", a2a.TaskStateFailed, 2), snap("big", "t3", a2a.TaskStateCompleted, 3),
		snap("small", "s1", a2a.TaskStateCompleted, 1)})
	if held, total := f.TerminalCount(); held != 3 || total != 97001 {
		t.Errorf("TerminalCount = %d of %d, want 3 of 97001", held, total)
	}
}

func TestAgentNote(t *testing.T) {
	f := NewFleet(Options{MaxAgentBytes: 1 << 10})
	f.Apply([]Event{status("big", "w1", a2a.TaskStateWorking, 1, textMsg(strings.Repeat("x", 4<<10))),
		{Kind: EventHealth, Agent: "note", Health: &HealthUpdate{State: HealthSweeping, Note: "ListTasks ignores the status filter"}},
		snap("calm", "c1", a2a.TaskStateWorking, 1)})
	for agent, want := range map[string]string{"big": "details of 1 task trimmed: the agent's task data passed 1 KiB",
		"note": "ListTasks ignores the status filter", "calm": ""} {
		if got := f.AgentNote(f.Agent(agent)); got != want {
			t.Errorf("AgentNote(%s) = %q, want %q", agent, got, want)
		}
	}
}

// A health change that only moves the last success (every good sweep)
// changes nothing a frame shows but the age the clock redraws: no new
// version, so an idle fleet does not redraw at every sweep.
func TestHealthLastSuccessAloneIsNoChange(t *testing.T) {
	f := NewFleet(Options{})
	h := HealthUpdate{State: HealthSweeping, LastSuccess: time.Unix(100, 0)}
	f.Apply([]Event{{Kind: EventHealth, Agent: "a", Health: &h}})
	v := f.Version()
	h2 := h
	h2.LastSuccess = time.Unix(105, 0)
	if res := f.Apply([]Event{{Kind: EventHealth, Agent: "a", Health: &h2}}); res.Changed || f.Version() != v ||
		!f.Agent("a").Health.LastSuccess.Equal(h2.LastSuccess) {
		t.Errorf("a later last success: changed %v, version %d -> %d", res.Changed, v, f.Version())
	}
	h3 := h2
	h3.Err = "stream: too large"
	if res := f.Apply([]Event{{Kind: EventHealth, Agent: "a", Health: &h3}}); !res.Changed {
		t.Errorf("an error on the row is a change")
	}
}
