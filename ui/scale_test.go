package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"a2atop/model"
)

// headerOf is the first line of the frame, without styles.
func headerOf(m *Model) string {
	return ansi.Strip(strings.SplitN(m.View(), "\n", 2)[0])
}

// When an agent holds more terminal tasks than are kept, the header says
// how many were left out: "terminal 4 of 97,003".
func TestHeaderSaysTerminalTasksLeftOut(t *testing.T) {
	f := fixtureFleet()
	m, _ := newTestModel(t, Options{Fleet: f})
	sized(m, 200, 50)
	term := f.Count(model.ClassTerminal, model.Query{})
	if h := headerOf(m); !strings.Contains(h, "terminal "+thousands(term)) || strings.Contains(h, " of ") {
		t.Fatalf("header before any total: %q", h)
	}
	a := f.Agent("test-runner")
	h := a.Health
	h.TerminalTotal = 97000
	f.Apply([]model.Event{{Kind: model.EventHealth, Agent: a.Name, Health: &h}})
	m.dirty = true
	_, total := f.TerminalCount()
	want := "terminal " + thousands(term) + " of " + thousands(total)
	if got := headerOf(m); !strings.Contains(got, want) || total < 97000 {
		t.Errorf("header %q, want it to say %q", got, want)
	}
	sized(m, 80, 24)
	if got := headerOf(m); ansi.StringWidth(got) > 80 {
		t.Errorf("80 columns: header %q is too wide", got)
	}
}

// An agent with no error but a note (its ListTasks ignores the status
// filter) shows the note on its row in the agents view.
func TestAgentsRowShowsTheNote(t *testing.T) {
	f := fixtureFleet()
	m, _ := newTestModel(t, Options{Fleet: f})
	sized(m, 200, 50)
	a := f.Agent("deployer")
	h := a.Health
	h.Err, h.Note = "", "ListTasks ignores the status filter: every full sweep lists every task"
	f.Apply([]model.Event{{Kind: model.EventHealth, Agent: a.Name, Health: &h}})
	press(m, "3")
	for _, l := range strings.Split(ansi.Strip(m.View()), "\n") {
		if strings.Contains(l, "deployer") && strings.Contains(l, "ignores the status filter") {
			return
		}
	}
	t.Errorf("no row says the note:\n%s", ansi.Strip(m.View()))
}

// An agent whose open tasks are past its share of the fleet's streams
// says, on its card, how many are followed by sweeps and which bound.
func TestAgentCardSaysTheStreamBudget(t *testing.T) {
	f := fixtureFleet()
	m, _ := newTestModel(t, Options{Fleet: f})
	sized(m, 200, 50)
	a := f.Agent("deployer")
	h := a.Health
	h.State, h.Streams, h.StreamsShort = model.HealthStreaming, 5, 25
	m.Update(eventsMsg{batch: []model.Event{{Kind: model.EventHealth, Agent: a.Name, Health: &h}}})
	press(m, "3")
	press(m, "/", "d", "e", "p", "l", "o", "y", "e", "r", "enter")
	if v := ansi.Strip(m.View()); !strings.Contains(v, "streaming (5 streams open); 25 more tasks followed by sweeps (the fleet's stream budget, max_streams_total)") {
		t.Errorf("the deployer's card does not say the stream budget:\n%s", v)
	}
}
