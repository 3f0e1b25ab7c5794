package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestAgentsTopAndBottomMoveTheCursor: g and G in the agents list go to
// the first and the last agent, as in every other list; the help says so.
func TestAgentsTopAndBottomMoveTheCursor(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	sized(m, 120, 40)
	press(m, "3")
	v := agentsOf(m)
	press(m, "G")
	if last := len(v.Listed()) - 1; v.Cursor() != last || v.Selected() != v.Listed()[last].Name {
		t.Fatalf("G: cursor %d (%s), want the last agent %d", v.Cursor(), v.Selected(), last)
	}
	press(m, "g")
	if v.Cursor() != 0 || v.Selected() != v.Listed()[0].Name {
		t.Fatalf("g: cursor %d (%s), want the first agent", v.Cursor(), v.Selected())
	}
	press(m, "?")
	help := ansi.Strip(m.View())
	if !strings.Contains(help, "first agent") || !strings.Contains(help, "last agent") || !strings.Contains(help, "scroll card") {
		t.Fatalf("the help does not say what g, G and the page keys do:\n%s", help)
	}
}
