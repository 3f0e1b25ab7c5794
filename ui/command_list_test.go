package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// helpText is every line the help shows, scrolled through to its end.
func helpText(m *Model) string {
	var all strings.Builder
	for range 10 {
		all.WriteString(ansi.Strip(m.View()) + "\n")
		press(m, "pgdown")
	}
	return all.String()
}

// TestHelpListsEveryCommand: ? lists every : command with its argument
// and what it does, at every size (the help scrolls when it is longer
// than the screen).
func TestHelpListsEveryCommand(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}, {200, 50}} {
		m, _ := newTestModel(t, Options{})
		sized(m, size[0], size[1])
		press(m, "?")
		text := helpText(m)
		for _, c := range commandList() {
			want := strings.TrimSpace(":" + c.name + " " + c.arg)
			if !strings.Contains(text, want) || !strings.Contains(text, c.desc) {
				t.Errorf("at %dx%d the help does not list %q (%s):\n%s", size[0], size[1], want, c.desc, text)
				break
			}
		}
	}
}

// TestTabListsTheCommands: : then tab lists every command; an ambiguous
// start lists what it could be and picks none; a unique one completes.
func TestTabListsTheCommands(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	sized(m, 120, 40)
	press(m, ":", "tab")
	v := ansi.Strip(m.View())
	for _, c := range commandList() {
		if !strings.Contains(v, ":"+c.name) {
			t.Errorf(": then tab does not list :%s:\n%s", c.name, v)
		}
	}
	press(m, "esc", ":", "s", "tab")
	v = ansi.Strip(m.View())
	if got := m.prompt.value(); got != "s" {
		t.Errorf(":s then tab picked %q", got)
	}
	if !strings.Contains(v, ":sort") || !strings.Contains(v, ":state") || strings.Contains(v, ":tasks ") {
		t.Errorf(":s then tab does not list just :sort and :state:\n%s", v)
	}
	press(m, "o", "tab")
	if got := m.prompt.value(); got != "sort " {
		t.Errorf(":so then tab completed %q, want \"sort \"", got)
	}
	if v := ansi.Strip(m.View()); !strings.Contains(v, "state desc") {
		t.Errorf("after :sort tab does not list its columns:\n%s", v)
	}
	press(m, "esc")
	runLine(m, "help")
	if m.overlay != overlayHelp {
		t.Errorf(":help did not open the help: %q", m.status.text)
	}
}
