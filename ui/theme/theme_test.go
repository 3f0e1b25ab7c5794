package theme

import (
	"io"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

func trueColor() *lipgloss.Renderer {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.TrueColor)
	return r
}

func TestParseMode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Mode
		err  bool
	}{
		{"", ModeAuto, false}, {"auto", ModeAuto, false}, {"Dark", ModeDark, false},
		{"light", ModeLight, false}, {"sepia", ModeAuto, true},
	} {
		got, err := ParseMode(tc.in)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("ParseMode(%q) = %v, %v", tc.in, got, err)
		}
	}
}

func TestNoColorEmitsNoColour(t *testing.T) {
	th := New(Options{Mode: ModeDark, NoColor: true, Renderer: trueColor()})
	out := th.State(a2a.TaskStateWorking).Render("working") + th.RowSelected.Render("row")
	if strings.Contains(out, "38;") || strings.Contains(out, "48;") {
		t.Fatalf("NoColor theme emitted a colour: %q", out)
	}
	if th.StateUnknown.Render("x") == "x" {
		t.Fatal("unknown state does not stand out without colour")
	}
}

func TestNoColorEnv(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	if th := New(Options{Mode: ModeLight, Renderer: trueColor()}); !th.NoColor {
		t.Fatal("NO_COLOR was not honoured")
	}
}

func TestModesPickTokenValues(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	dark := New(Options{Mode: ModeDark, Renderer: trueColor()})
	light := New(Options{Mode: ModeLight, Renderer: trueColor()})
	if dark.State(a2a.TaskStateWorking).Render("w") == light.State(a2a.TaskStateWorking).Render("w") {
		t.Fatal("dark and light render the same")
	}
}

func TestStateStylesDiffer(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	th := New(Options{Mode: ModeDark, Renderer: trueColor()})
	seen := map[string]a2a.TaskState{}
	for _, s := range []a2a.TaskState{a2a.TaskStateWorking, a2a.TaskStateInputRequired,
		a2a.TaskStateCompleted, a2a.TaskStateFailed, "TASK_STATE_BOGUS"} {
		out := th.State(s).Render("x")
		if prev, ok := seen[out]; ok {
			t.Errorf("%s renders like %s", s, prev)
		}
		seen[out] = s
	}
}

func TestOverrideTokens(t *testing.T) {
	p := DefaultPalette()
	if err := Override(&p, map[string]Color{"accent": {Light: "#005fd7", Dark: "#5fafff"}, "warn": {Dark: "208"}}); err != nil {
		t.Fatal(err)
	}
	if p.Accent.Light != "#005fd7" || p.Accent.Dark != "#5fafff" || p.Warn.Dark != "208" || p.Warn.Light != DefaultPalette().Warn.Light {
		t.Fatalf("override: %+v %+v", p.Accent, p.Warn)
	}
	for colors, want := range map[string]map[string]Color{
		"accnt: no such colour token": {"accnt": {Dark: "1"}},
		`ok: "green" is not a colour`: {"ok": {Dark: "green"}},
		`ok: "300" is not a colour`:   {"ok": {Light: "300"}},
	} {
		if err := Override(&p, want); err == nil || !strings.HasPrefix(err.Error(), colors) {
			t.Errorf("Override(%v) = %v, want %q", want, err, colors)
		}
	}
	names := map[string]bool{}
	for _, tk := range Tokens(DefaultPalette()) {
		if tk.Name == "" || tk.Doc == "" || names[tk.Name] {
			t.Errorf("token %+v has no name, no doc, or a name twice", tk)
		}
		names[tk.Name] = true
	}
}
