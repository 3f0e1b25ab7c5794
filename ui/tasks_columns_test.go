package ui

import (
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/charmbracelet/x/ansi"

	"a2atop/model"
	"a2atop/ui/tasks"
)

// paneText is the drawn lines of a pane, without styling.
func paneText(m *Model, c model.Class) []string {
	return strings.Split(ansi.Strip(strings.Join(tasksOf(m).PaneLines(c), "\n")), "\n")
}

func TestAPaneWithoutHintsGivesTheTextTheRoom(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	long := "compiling 312 packages, then the integration suite against the staging database"
	m.Update(eventsMsg{batch: []model.Event{taskEvent("test-runner", "long-0001", a2a.TaskStateWorking, 0, long)}})
	sized(m, 120, 40)
	active := paneText(m, model.ClassActive)
	if strings.Contains(active[1], "HINT") || !strings.Contains(strings.Join(active, "\n"), long) {
		t.Fatalf("the Active pane (no hints) keeps a HINT column or cuts the text:\n%s", strings.Join(active, "\n"))
	}
	inter := paneText(m, model.ClassInterrupted)
	if !strings.Contains(inter[1], "HINT") || !strings.Contains(strings.Join(inter, "\n"), "waiting on deployer · 23cf3710") {
		t.Fatalf("the Interrupted pane lost its hints:\n%s", strings.Join(inter, "\n"))
	}
}

func TestUnknownStateIsShownWhole(t *testing.T) {
	for _, w := range []int{80, 200} {
		m, _ := newTestModel(t, Options{})
		sized(m, w, 50)
		if v := ansi.Strip(m.View()); !strings.Contains(v, "unknown(TASK_STATE_PAUSED)") {
			t.Errorf("at %d columns the odd state is cut:\n%s", w, v)
		}
	}
}

func TestSideBySidePanesShowTheSameText(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	sized(m, 200, 50)
	var widths []int
	for _, c := range []model.Class{model.ClassActive, model.ClassInterrupted, model.ClassTerminal} {
		widths = append(widths, tasksOf(m).StatusWidth(c))
	}
	for _, w := range widths {
		if w < 24 || w-widths[0] > 1 || widths[0]-w > 1 {
			t.Fatalf("status widths at 200 columns: %v, want about equal and at least 24", widths)
		}
	}
}

// TestIDsAreShownAtEveryWidth: the ids a command takes can be read off
// every pane with rows at every width from 80 columns; the status text
// narrows first.
func TestIDsAreShownAtEveryWidth(t *testing.T) {
	for w := 80; w <= 240; w += 2 {
		m, _ := newTestModel(t, Options{})
		sized(m, w, 40)
		for _, c := range []model.Class{model.ClassActive, model.ClassInterrupted, model.ClassTerminal, model.ClassUnknown} {
			p := tasksOf(m).PaneOf(c)
			if p.W == 0 || len(p.Rows) == 0 {
				continue
			}
			lines := paneText(m, c)
			if !strings.Contains(lines[1], " ID ") {
				t.Errorf("at %d columns the %s pane has no ID column:\n%s", w, tasks.PaneName(c), strings.Join(lines, "\n"))
				continue
			}
			for _, r := range p.Rows {
				if !strings.Contains(strings.Join(lines, "\n"), model.ShortID(r.Key.ID)) {
					t.Errorf("at %d columns the %s pane does not show %s", w, tasks.PaneName(c), model.ShortID(r.Key.ID))
				}
			}
		}
	}
}

// A task its agent no longer knows leaves the Active pane and shows in
// the Terminal one as gone, not as the working task it was.
func TestGoneTaskShowsAsGoneAmongTheFinished(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	m.Update(eventsMsg{batch: []model.Event{taskEvent("test-runner", "lost-0001", a2a.TaskStateWorking, 0, "step 3 of 9")}})
	m.Update(eventsMsg{batch: []model.Event{{Kind: model.EventGone, Agent: "test-runner", Task: &a2a.Task{ID: "lost-0001"}}}})
	sized(m, 200, 50)
	if active := strings.Join(paneText(m, model.ClassActive), "\n"); strings.Contains(active, "step 3 of 9") {
		t.Errorf("the gone task is still in the Active pane:\n%s", active)
	}
	var row string
	for _, l := range paneText(m, model.ClassTerminal) {
		if strings.Contains(l, "lost-000") {
			row = l
		}
	}
	if !strings.Contains(row, "gone") || strings.Contains(row, "working") {
		t.Errorf("the gone task's row in the Terminal pane = %q, want it shown as gone:\n%s", row, strings.Join(paneText(m, model.ClassTerminal), "\n"))
	}
}
