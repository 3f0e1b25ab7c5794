package cli

import (
	"io"
	"strings"
	"syscall"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"a2atop/internal/agenttest"
	"a2atop/model"
	"a2atop/ui/termbg"
	"a2atop/ui/theme"
)

// TestAutoThemeDrawsBeforeASilentTerminalAnswers: in theme mode auto
// (no config: the default) on a terminal that answers no query, the
// dashboard draws its first picture without waiting for the terminal
// (it asked termenv's way before: OSC 11 and a cursor report, then 5 s
// for an answer), in the start's guess, dark; when the terminal answers
// its background query later, white, it draws in the light colours.
func TestAutoThemeDrawsBeforeASilentTerminalAnswers(t *testing.T) {
	isolate(t)
	ag := agenttest.StartAgent(t)
	id := ag.Start("deploy")
	// CI= : termenv asks nothing while CI is set, as it is in .ci/run;
	// the terminal's colours as a 256-colour xterm without COLORFGBG.
	env := []string{"CI=", "TERM=xterm-256color", "COLORTERM=", "COLORFGBG=", "NO_COLOR="}
	p := startOnSilentTerminal(t, env, ag.URL)
	dark, light := headerTitles(t)
	p.waitOutput(t, "interrupted 1", model.ShortID(id), termbg.Query, dark)
	if out := p.out.String(); strings.Contains(out, "\x1b[6n") {
		t.Errorf("the dashboard asked for the cursor position, as termenv does to end its wait for the background: %q", tail(out))
	}
	if _, err := p.master.WriteString("\x1b]11;rgb:ffff/ffff/ffff\x1b\\"); err != nil {
		t.Fatal(err)
	}
	p.waitOutput(t, light)
	p.stop(t, syscall.SIGTERM)
}

// headerTitles are the header's "a2atop" as the dashboard draws it on a
// 256-colour terminal in the dark and in the light theme.
func headerTitles(t *testing.T) (dark, light string) {
	t.Helper()
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI256)
	dark = theme.New(theme.Options{Mode: theme.ModeDark, Renderer: r}).Title.Render("a2atop")
	light = theme.New(theme.Options{Mode: theme.ModeLight, Renderer: r}).Title.Render("a2atop")
	if dark == light {
		t.Fatalf("the title is drawn the same in both themes (%q): pick another style", dark)
	}
	return dark, light
}
