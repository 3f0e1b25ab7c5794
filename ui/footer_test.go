package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

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
	if f := footerOf(m); !strings.HasPrefix(f, ":") || !strings.Contains(f, "tab complete • enter run • esc close") || ansi.StringWidth(f) > 80 {
		t.Errorf("command footer %q", f)
	}
}
