package theme

import (
	"fmt"
	"os"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/charmbracelet/lipgloss"

	"a2atop/model"
)

// Mode chooses between the light and dark value of every colour token.
type Mode uint8

// The modes. ModeAuto (the zero value) follows the terminal's background:
// the start's guess, then the terminal's answer (ui.Options.AskBackground).
const (
	ModeAuto Mode = iota
	ModeDark
	ModeLight
)

// ParseMode reads "auto", "dark" or "light" (any case; "" is auto).
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return ModeAuto, nil
	case "dark":
		return ModeDark, nil
	case "light":
		return ModeLight, nil
	}
	return ModeAuto, fmt.Errorf("theme %q: use auto, dark or light", s)
}

// Options configure New. The zero value is a colour theme in ModeAuto on
// lipgloss's default renderer, with NO_COLOR read from the environment.
type Options struct {
	Mode Mode
	// NoColor turns every colour off. New also turns colours off when the
	// NO_COLOR environment variable is set to anything non-empty.
	NoColor bool
	// Palette overrides DefaultPalette when non-nil.
	Palette *Palette
	// Renderer is the lipgloss renderer styles are made with; nil means
	// lipgloss.DefaultRenderer().
	Renderer *lipgloss.Renderer
}

// Theme is the set of named styles every view draws with. Build it with
// New; the zero value has no styling at all (plain text), which is valid.
type Theme struct {
	Palette Palette
	Dark    bool // whether dark values were chosen
	NoColor bool // whether colours are off

	App         lipgloss.Style // the whole screen
	Title       lipgloss.Style // "a2atop" in the header
	Header      lipgloss.Style // the header line
	Footer      lipgloss.Style // the short help line
	Badge       lipgloss.Style // READ-ONLY
	Label       lipgloss.Style // "agents", "contextId" labels
	Text        lipgloss.Style // ordinary text
	Muted       lipgloss.Style // ages, ids, secondary text
	Link        lipgloss.Style // referenceTaskIds that can be followed
	LinkFocused lipgloss.Style // the link enter will follow

	Pane             lipgloss.Style // an unfocused pane's border
	PaneFocused      lipgloss.Style // the focused pane's border
	PaneTitle        lipgloss.Style // a pane's title
	PaneTitleFocused lipgloss.Style
	ColumnHeader     lipgloss.Style // the column names above rows
	Row              lipgloss.Style
	RowSelected      lipgloss.Style // the selected row in the focused pane
	RowMarked        lipgloss.Style // the selected row in an unfocused pane
	Marked           lipgloss.Style // a row marked for an action on many (space), and the counter

	StateActive      lipgloss.Style
	StateInterrupted lipgloss.Style
	StateTerminal    lipgloss.Style
	StateFailed      lipgloss.Style // failed, rejected
	StateUnknown     lipgloss.Style // stands out on purpose

	OK    lipgloss.Style // healthy
	Warn  lipgloss.Style // degraded, stale
	Error lipgloss.Style // down, errors

	Dialog      lipgloss.Style // confirmation boxes
	DialogTitle lipgloss.Style
	Prompt      lipgloss.Style // "/" and ":" prompts
	HelpKey     lipgloss.Style
	HelpDesc    lipgloss.Style
	HelpSep     lipgloss.Style

	r *lipgloss.Renderer // what the styles are made with, for SetDark
}

// New builds a Theme. It asks the terminal nothing: ModeAuto starts
// from the renderer's answer (on lipgloss's default one, the start's
// guess: ui/termbg), and the dashboard asks the terminal once its
// program runs (ui.Options.AskBackground) and calls SetDark with the
// answer.
func New(o Options) *Theme {
	r := o.Renderer
	if r == nil {
		r = lipgloss.DefaultRenderer()
	}
	p := DefaultPalette()
	if o.Palette != nil {
		p = *o.Palette
	}
	t := &Theme{Palette: p, NoColor: o.NoColor || os.Getenv("NO_COLOR") != "", r: r}
	switch o.Mode {
	case ModeDark:
		t.Dark = true
	case ModeLight:
		t.Dark = false
	default:
		t.Dark = detect(r)
	}
	t.build(r)
	return t
}

// detect is the background ModeAuto starts from: the renderer's
// answer, which on lipgloss's default renderer is what ui/termbg set at
// start (it asked nothing: a terminal that never answers holds nothing
// up).
func detect(r *lipgloss.Renderer) bool { return r.HasDarkBackground() }

// SetDark switches the theme to the dark (or light) value of every
// token, in place: everything that holds the *Theme draws with it from
// then on; what a screen reduced to escape sequences (common.Paint) it
// makes again. It asks the terminal nothing.
func (t *Theme) SetDark(dark bool) {
	if t.r == nil {
		t.r = lipgloss.DefaultRenderer()
	}
	t.Dark = dark
	t.build(t.r)
}

// color resolves a token for the chosen mode; NoColor yields no colour.
func (t *Theme) color(c lipgloss.AdaptiveColor) lipgloss.TerminalColor {
	if t.NoColor {
		return lipgloss.NoColor{}
	}
	if t.Dark {
		return lipgloss.Color(c.Dark)
	}
	return lipgloss.Color(c.Light)
}

// State returns the style for a task's state: its class colour, with
// failed and rejected in the error colour and unknown states standing out.
func (t *Theme) State(s a2a.TaskState) lipgloss.Style {
	n := model.NormalizeState(s)
	if n == a2a.TaskStateFailed || n == a2a.TaskStateRejected {
		return t.StateFailed
	}
	return t.Class(model.ClassOf(n))
}

// Class returns the style for a pane class.
func (t *Theme) Class(c model.Class) lipgloss.Style {
	switch c {
	case model.ClassActive:
		return t.StateActive
	case model.ClassInterrupted:
		return t.StateInterrupted
	case model.ClassTerminal:
		return t.StateTerminal
	default:
		return t.StateUnknown
	}
}
