package ui

import (
	"testing"

	"a2atop/model"
	"a2atop/ui/tasks"
)

// TestSavedViewFocusesAPaneWithRows: a saved view opens with the focus
// on the first pane that has rows, whether it is opened by its key or
// is the default one, open before the first tasks arrive.
func TestSavedViewFocusesAPaneWithRows(t *testing.T) {
	views := []SavedView{{Name: "waiting", Filter: "class:interrupted"}, {Name: "ended", Filter: "class:terminal", Default: true}}
	m, _ := newTestModel(t, Options{Views: views})
	sized(m, 120, 40)
	if v := tasksOf(m); v.Focus() != model.ClassTerminal {
		t.Errorf("the default view opened with the focus on %s, want Terminal", tasks.PaneName(v.Focus()))
	}
	press(m, "5")
	if v := tasksOf(m); v.Focus() != model.ClassInterrupted {
		t.Errorf("5 opened the view with the focus on %s, want Interrupted", tasks.PaneName(v.Focus()))
	}

	// The default view is open before the watchers report anything.
	m, _ = newTestModel(t, Options{Views: views, Fleet: emptyFixtureFleet()})
	sized(m, 120, 40)
	m.Update(eventsMsg{batch: fixtureEvents()})
	if v := tasksOf(m); v.Focus() != model.ClassTerminal {
		t.Errorf("once the tasks arrived the focus is on %s, want Terminal (the pane the view fills)", tasks.PaneName(v.Focus()))
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
