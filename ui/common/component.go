package common

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// Component is one screen (or part of one) that the root model drives: a
// tea.Model whose Update returns the Component, plus its size and its key
// help. The root model alone handles tea.WindowSizeMsg and calls SetSize;
// it forwards key, mouse and the messages in this package to Update.
// A tea.MouseMsg reaches a component in the component's own cells: Y 0 is
// the first line of its View.
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
// typed text (a reply editor, a reason field). While Capturing reports
// true the root model forwards every key to the component except ctrl+c,
// so that typing "q" or "2" edits text instead of switching views.
type InputCapturer interface {
	Capturing() bool
}

// Titled is implemented by a Component that wants a title in the header
// ("inbox · 3 waiting"). Optional.
type Titled interface {
	Title() string
}
