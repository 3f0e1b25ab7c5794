package cli

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"a2atop/internal/agenttest"
)

// counter is a model whose view changes only when it is bumped.
type counter struct{ n int }

type bump struct{}

func (c counter) Init() tea.Cmd { return nil }
func (c counter) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(bump); ok {
		c.n++
	}
	return c, nil
}
func (c counter) View() string { return fmt.Sprintf("count %d", c.n) }

// runPaced runs a paced counter on the standard renderer at FrameRate,
// writing to out, until the test ends.
func runPaced(t *testing.T, out *agenttest.Buffer) (*tea.Program, *pacer) {
	t.Helper()
	pm := newPaced(counter{n: 1})
	p := tea.NewProgram(pm, tea.WithInput(nil), tea.WithOutput(out), tea.WithoutSignalHandler(), tea.WithFPS(FrameRate))
	pm.attach(p)
	done := make(chan struct{})
	go func() { defer close(done); _, _ = p.Run() }()
	t.Cleanup(func() { p.Quit(); <-done })
	return p, pm.p
}

// TestPacedFindsTheTicker holds the reflection renderpace.go does on
// Bubble Tea's standard renderer: it fails the day the library's fields
// change, when pacing would silently be off.
func TestPacedFindsTheTicker(t *testing.T) {
	var out agenttest.Buffer
	_, pc := runPaced(t, &out)
	eventually(t, "drawn", func() bool { return strings.Contains(out.String(), "count 1") })
	tk, frame := frameTicker(pc.prog)
	if tk == nil {
		t.Fatal("the standard renderer's ticker was not found: is Bubble Tea still v1.3.10?")
	}
	if want := time.Second / FrameRate; frame != want {
		t.Errorf("frame period %v, want %v", frame, want)
	}
}

// TestPacedRendererRestsAndStillDraws: once the view stops changing, the
// frame ticker stops (nothing wakes 30 times a second at rest), and a
// change afterwards still reaches the output.
func TestPacedRendererRestsAndStillDraws(t *testing.T) {
	var out agenttest.Buffer
	p, pc := runPaced(t, &out)
	eventually(t, "drawn", func() bool { return strings.Contains(out.String(), "count 1") })
	for round := 2; round <= 3; round++ {
		eventually(t, "resting", pc.resting)
		// A running ticker would tick here ten times: the renderer's
		// goroutine takes one, and queues behind this receive for the next.
		tk, frame := frameTicker(pc.prog)
		select {
		case <-tk.C:
			t.Fatal("the frame ticker ticked while the view stayed the same")
		case <-time.After(10 * frame):
		}
		p.Send(bump{})
		want := fmt.Sprintf("count %d", round)
		eventually(t, "showing "+want, func() bool { return strings.Contains(out.String(), want) })
	}
}

// TestPacedRendererRepaintsOnResize: a resize repaints the whole screen
// even when the view stays the same (a terminal reattached at the same
// size): Bubble Tea marks it for a repaint, which only a tick draws.
func TestPacedRendererRepaintsOnResize(t *testing.T) {
	var out agenttest.Buffer
	p, pc := runPaced(t, &out)
	eventually(t, "drawn", func() bool { return strings.Contains(out.String(), "count 1") })
	eventually(t, "resting", pc.resting)
	before := len(out.String())
	p.Send(tea.WindowSizeMsg{Width: 80, Height: 24})
	eventually(t, "repainted", func() bool { return strings.Count(out.String()[before:], "count 1") > 0 })
}
