package ui

import (
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"a2atop/ui/theme"
)

// sgr matches our own styling: CSI parameters ending in m.
var sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")

// TestHostileStatusIsHarmless renders the hostile status message (OSC 52
// clipboard write, ESC[2J, bidi override) in a colour theme, in the row
// and in the detail, and checks that the only escape sequences on screen
// are SGR styling.
func TestHostileStatusIsHarmless(t *testing.T) {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.TrueColor)
	th := theme.New(theme.Options{Mode: theme.ModeDark, Renderer: r})
	m, _ := newTestModel(t, Options{Theme: th})
	sized(m, 200, 50)
	for _, keys := range [][]string{nil, {"j", "j", "enter"}, {"J"}} {
		press(m, keys...)
		out := m.View()
		if !strings.Contains(out, "cleared") {
			t.Fatalf("after %v the hostile text is not on screen", keys)
		}
		rest := sgr.ReplaceAllString(out, "")
		if i := strings.IndexAny(rest, "\x1b\x07\u009b\u009d\u202e"); i >= 0 {
			t.Fatalf("after %v a control reached the screen: %q", keys, rest[max(i-20, 0):min(i+20, len(rest))])
		}
		if !sgr.MatchString(out) {
			t.Fatal("the colour theme emitted no styling at all; the test would prove nothing")
		}
	}
}
