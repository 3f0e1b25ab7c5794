package ui

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"a2atop/model"
	"a2atop/ui/internal/uitest"
	"a2atop/ui/theme"
)

// TestHostileStateAndIDAreHarmless: an agent's task state and task id
// are agent text too. A task whose (unknown) state and id carry OSC 52
// and a screen clear is shown in the row, the detail, the cancel dialog
// and the footer notices without a control reaching the screen.
func TestHostileStateAndIDAreHarmless(t *testing.T) {
	const id a2a.TaskID = "\x1b]52;c;ZWNobw==\x07\x1b[2J-task"
	const state a2a.TaskState = "TASK_STATE_\x1b]52;c;ZWNobw==\x07\x1b[2J"
	f := fixtureFleet()
	f.Apply([]model.Event{taskEvent("code-reviewer", id, state, 0, "odd")})
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.TrueColor)
	th := theme.New(theme.Options{Mode: theme.ModeDark, Renderer: r})
	clk := newClock()
	m, b := newTestModel(t, Options{Fleet: f, Theme: th, Now: clk.Now})
	b.cancelErr = errors.New("the agent would not stop")
	sized(m, 200, 50)
	check := func(step string) {
		t.Helper()
		m.dirty = true
		rest := sgr.ReplaceAllString(m.View(), "")
		if i := strings.IndexAny(rest, "\x1b\x07\u009b\u009d"); i >= 0 {
			t.Fatalf("%s: a control reached the screen: %q", step, rest[max(i-30, 0):min(i+30, len(rest))])
		}
	}
	for _, tab := range []string{"tab", "tab", "tab"} { // to the Unknown pane
		press(m, tab)
	}
	if sel := tasksOf(m).Selected(); sel == nil || sel.Key.ID != id {
		t.Fatalf("selected %v, want the hostile task", sel)
	}
	check("row")
	press(m, "enter")
	check("detail")
	press(m, "c")
	check("cancel dialog")
	clk.add(time.Second)
	_, cmd := m.Update(uitest.Key("y"))
	check("canceling notice")
	settle(m, cmd)
	if len(b.cancels) != 1 {
		t.Fatal("the cancel was not sent")
	}
	check("cancel result")
}
