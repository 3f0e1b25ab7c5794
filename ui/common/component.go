package common

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// Component is one screen of the dashboard (tasks, detail, agents, inbox,
// journal, help): a tea.Model whose Update returns the Component, plus
// its size and its key help. The root model alone handles
// tea.WindowSizeMsg and calls SetSize. It hands the screen shown every
// key and mouse press, every screen the messages of this package, and
// every screen any message it does not know itself (the answer to a
// screen's own tea.Cmd): a screen ignores what is not its own.
// A tea.MouseMsg reaches a screen in its own cells: Y 0 is the first line
// of its View.
type Component interface {
	Update(tea.Msg) (Component, tea.Cmd)
	View() string
	// SetSize gives the component the cells it may draw in. View must
	// never return more than w columns or h lines.
	SetSize(w, h int)
	// ShortHelp is shown in the footer; FullHelp on `?`. Disabled
	// bindings (key.Binding.SetEnabled(false)) are not shown.
	ShortHelp() []key.Binding
	FullHelp() [][]key.Binding
}

// InputCapturer is implemented by a Component that is, at times, taking
// typed text or answering a dialog (a reply editor, a filter, a
// confirmation). While Capturing reports true the root model forwards
// every key to the component except ctrl+c, so that typing "q" or "2"
// edits text instead of switching views, and the footer shows the
// component's keys alone.
type InputCapturer interface {
	Capturing() bool
}

// Titled is implemented by a Component that names itself in the header
// ("inbox", "task"). Optional: the root falls back to the view's name.
type Titled interface {
	Title() string
}

// Footnoter is implemented by a Component that writes the start of the
// footer itself (the tasks filter). Footnote returns that text within w
// cells, and whether it is being edited: then it is the whole footer, no
// notice and no keys.
type Footnoter interface {
	Footnote(w int) (text string, editing bool)
}

// HelpNoter is implemented by a Component whose help screen ends with a
// line of its own (the filter's syntax). Optional.
type HelpNoter interface {
	HelpNote() string
}

// TextOpener is implemented by a Component with a field that a key opens
// outside any dialog (the `/` filter of a list). The root hands it a
// paste that starts with that key: the key opens the field and the rest
// is typed into it. Any other paste outside a field is text, never keys,
// and is dropped.
type TextOpener interface {
	OpensText(tea.KeyMsg) bool
}

// Quitter is implemented by a Component with something to keep before
// the dashboard quits (the inbox's open reply, into its drafts file).
// Quitting returns the Cmd that keeps it; the root runs it to its end
// before it quits.
type Quitter interface {
	Quitting() tea.Cmd
}
