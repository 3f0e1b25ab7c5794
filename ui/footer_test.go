package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"a2atop/model"
	"a2atop/ui/common"
)

// footerOf is the last line of the frame.
func footerOf(m *Model) string {
	lines := strings.Split(m.View(), "\n")
	return lines[len(lines)-1]
}

func TestFooterAlwaysShowsTheHelpKey(t *testing.T) {
	var rec *recorder
	m, _ := newTestModel(t, Options{Inbox: func(c common.Context) common.Component {
		rec = &recorder{ctx: c}
		return rec
	}})
	sized(m, 80, 24)
	for _, step := range []struct {
		name string
		keys []string
	}{
		{"tasks", nil},
		{"detail", []string{"enter"}},
		{"agents", []string{"esc", "3"}},
		{"inbox", []string{"2"}},
	} {
		press(m, step.keys...)
		f := footerOf(m)
		if !strings.HasSuffix(f, "? help") || ansi.StringWidth(f) > 80 {
			t.Errorf("%s: the footer %q does not end with ? help within 80 cells", step.name, f)
		}
	}
	// A component taking text gets "?" typed: the footer does not offer it.
	rec.capturing = true
	m.dirty = true
	if f := footerOf(m); strings.Contains(f, "? help") {
		t.Errorf("while the inbox takes text the footer offers %q", f)
	}
}

func TestFooterOfTheCancelDialogShowsItsAnswers(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	sized(m, 80, 24)
	press(m, "c")
	if f := footerOf(m); !strings.Contains(f, "y yes") || !strings.Contains(f, "n/esc no") || strings.Contains(f, "enter") {
		t.Fatalf("footer under the cancel dialog: %q", f)
	}
}

func TestPromptsSayWhatTheirKeysDo(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	sized(m, 80, 24)
	press(m, "/", "d", "e", "p")
	if f := footerOf(m); !strings.HasPrefix(f, "/dep") || !strings.Contains(f, "enter keep • esc clear") || ansi.StringWidth(f) > 80 {
		t.Errorf("filter footer %q", f)
	}
	press(m, "enter", ":")
	if f := footerOf(m); !strings.HasPrefix(f, ":") || !strings.Contains(f, "tab complete • ↓ next • enter run • esc close") || ansi.StringWidth(f) > 80 {
		t.Errorf("command footer %q", f)
	}
	// What is typed, and the keys, stay on the line (tab lists the
	// completions above it: command_list_test.go).
	press(m, "a", "g")
	if f := footerOf(m); !strings.HasPrefix(f, ":ag") || !strings.Contains(f, "↓ next") || ansi.StringWidth(f) > 80 {
		t.Errorf("command footer with a completion %q", f)
	}
}

// TestFooterOffersOnlyWhatTheSelectedTaskTakes: the footer offers cancel
// only for a task that runs or waits, reply only for one that waits on a
// person, neither on an agent that is read-only here; the raw JSON view
// offers its own keys, not the detail's. A completed task's detail
// offered "c cancel task • r reply", which then refused.
func TestFooterOffersOnlyWhatTheSelectedTaskTakes(t *testing.T) {
	inbox := func(c common.Context) common.Component { return &recorder{ctx: c} }
	for _, tc := range []struct {
		name       string
		keys       []string
		readOnly   string // an agent configured read_only
		has, lacks []string
	}{
		{"active row", nil, "", []string{"c cancel task", "Y copy id", "enter open"}, []string{"r reply"}},
		{"interrupted row", []string{"tab"}, "", []string{"c cancel task", "r reply"}, nil},
		{"terminal row", []string{"tab", "tab"}, "", []string{"Y copy id"}, []string{"c cancel task", "r reply"}},
		{"completed detail", []string{"tab", "tab", "j", "enter"}, "", []string{"J raw json", "Y copy id"}, []string{"c cancel", "r reply"}},
		{"interrupted detail", []string{"tab", "enter"}, "", []string{"c cancel task", "r reply"}, []string{"tab next link"}},
		{"detail with links", []string{"tab", "j", "j", "enter"}, "", []string{"tab next link", "enter open"}, nil},
		{"raw JSON", []string{"tab", "tab", "j", "enter", "J"}, "", []string{"J/esc back to the task"},
			[]string{"c cancel", "r reply", "J raw json", "tab next link", "Y copy id"}},
		{"read-only agent", []string{"tab"}, "deployer", nil, []string{"c cancel task", "r reply"}},
	} {
		m, _ := newTestModel(t, Options{Inbox: inbox})
		sized(m, 200, 50)
		if tc.readOnly != "" {
			m.ctx.Fleet.Apply([]model.Event{{Kind: model.EventAgent, Agent: tc.readOnly, Info: &model.AgentInfo{ReadOnly: true}}})
		}
		press(m, tc.keys...)
		if tc.name == "read-only agent" {
			for tasksOf(m).Selected().Key.Agent != tc.readOnly {
				press(m, "j")
			}
		}
		f := footerOf(m)
		for _, want := range tc.has {
			if !strings.Contains(f, want) {
				t.Errorf("%s: the footer %q lacks %q", tc.name, f, want)
			}
		}
		for _, not := range tc.lacks {
			if strings.Contains(f, not) {
				t.Errorf("%s: the footer %q offers %q", tc.name, f, not)
			}
		}
	}
}
