package ui

import (
	"testing"
)

// TestPromptKeysComeFromTheKeyMap: enter in the filter and the command
// line is KeyMap.Accept, so an override moves it.
func TestPromptKeysComeFromTheKeyMap(t *testing.T) {
	km := DefaultKeyMap()
	km.Accept.SetKeys("ctrl+s")
	m, _ := newTestModel(t, Options{KeyMap: &km})
	sized(m, 120, 40)
	press(m, ":", "a", "g", "e", "n", "t", "s", "enter")
	if m.view != viewTasks || m.overlay != overlayCommand {
		t.Fatalf("enter ran the command although Accept is ctrl+s (view %d, overlay %d)", m.view, m.overlay)
	}
	press(m, "ctrl+s")
	if m.view != viewAgents || m.overlay != overlayNone {
		t.Fatalf("ctrl+s (Accept) did not run :agents (view %d, overlay %d)", m.view, m.overlay)
	}
}

// TestCommandNamesAreNotShared: each dashboard completes from its own
// list; nothing one does to it reaches another.
func TestCommandNamesAreNotShared(t *testing.T) {
	a, _ := newTestModel(t, Options{})
	b, _ := newTestModel(t, Options{})
	a.cmds[0].name = "changed"
	if b.cmds[0].name != "tasks" || commandList()[0].name != "tasks" || b.candidates("t")[0].line != "tasks" {
		t.Fatal("the command names are shared between dashboards")
	}
}
