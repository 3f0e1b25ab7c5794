package ui

import (
	"testing"

	"a2atop/model"
)

// TestSavedViewFocusesAPaneWithRows: a saved view opens with the focus
// on the first pane that has rows, whether it is opened by its key or
// is the default one, open before the first tasks arrive.
func TestSavedViewFocusesAPaneWithRows(t *testing.T) {
	views := []SavedView{{Name: "waiting", Filter: "class:interrupted"}, {Name: "ended", Filter: "class:terminal", Default: true}}
	m, _ := newTestModel(t, Options{Views: views})
	sized(m, 120, 40)
	if v := tasksOf(m); v.focus != model.ClassTerminal {
		t.Errorf("the default view opened with the focus on %s, want Terminal", paneName(v.focus))
	}
	press(m, "5")
	if v := tasksOf(m); v.focus != model.ClassInterrupted {
		t.Errorf("5 opened the view with the focus on %s, want Interrupted", paneName(v.focus))
	}

	// The default view is open before the watchers report anything.
	m, _ = newTestModel(t, Options{Views: views, Fleet: emptyFixtureFleet()})
	sized(m, 120, 40)
	m.Update(eventsMsg{batch: fixtureEvents()})
	if v := tasksOf(m); v.focus != model.ClassTerminal {
		t.Errorf("once the tasks arrived the focus is on %s, want Terminal (the pane the view fills)", paneName(v.focus))
	}
}

// emptyFixtureFleet is the fixture's agents, before any event.
func emptyFixtureFleet() *model.Fleet {
	f := model.NewFleet(model.Options{})
	for _, a := range fixtureAgents {
		f.AddAgent(a.name, a.url)
	}
	return f
}
