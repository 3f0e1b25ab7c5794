package ui

import (
	"strings"
	"testing"
)

// TestViaAndStart: Via leads the footer ("alice via ssh" for an SSH
// session), Start opens the dashboard on the screen named; without them
// a dashboard opens on the tasks and its footer says nothing of who.
func TestViaAndStart(t *testing.T) {
	m, _ := newTestModel(t, Options{Via: "alice via ssh", Start: "agents"})
	m = sized(m, 120, 30)
	lines := strings.Split(m.View(), "\n")
	if foot := lines[len(lines)-1]; !strings.HasPrefix(foot, "alice via ssh") {
		t.Errorf("the footer is %q; want it to start with alice via ssh", foot)
	}
	if m.view != viewAgents || !strings.Contains(lines[0], "agents") {
		t.Errorf("opened on %s (%q); want the agents", viewNames[m.view], lines[0])
	}
	plain, _ := newTestModel(t, Options{Start: "no such screen"})
	plain = sized(plain, 120, 30)
	if v := plain.View(); plain.view != viewTasks || strings.Contains(v, " via ") {
		t.Errorf("a dashboard without Via or a known Start opened on %s:\n%s", viewNames[plain.view], v)
	}
}
