package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// typeFilter types a filter on the screen shown and keeps it.
func typeFilter(m *Model, text string) {
	press(m, "/")
	for _, r := range text {
		press(m, string(r))
	}
	press(m, "enter")
}

// TestFilterTypoIsAnError: a filter token that names nothing (an unknown
// key, state or agent) says so, naming what it could be, in the footer
// and in the empty panes, instead of "no tasks match".
func TestFilterTypoIsAnError(t *testing.T) {
	for _, tc := range []struct{ filter, want string }{
		{"sate:failed", `unknown filter key "sate"`},
		{"state:waiting", "state:waiting names no state: use submitted"},
		{"agent:nosuch", "agent:nosuch names no agent: the agents are test-runner, code-reviewer"},
	} {
		m, _ := newTestModel(t, Options{})
		sized(m, 120, 40)
		typeFilter(m, tc.filter)
		v := ansi.Strip(m.View())
		if !strings.Contains(v, tc.want) || strings.Contains(v, "no tasks match") {
			t.Errorf("/%s shows, want %q:\n%s", tc.filter, tc.want, v)
		}
	}
	// The agents screen reads its filter the same way.
	m, _ := newTestModel(t, Options{})
	sized(m, 120, 40)
	press(m, "3")
	typeFilter(m, "agent:nosuch")
	if v := ansi.Strip(m.View()); !strings.Contains(v, "agent:nosuch names no agent") {
		t.Errorf("agents /agent:nosuch shows:\n%s", v)
	}
}
