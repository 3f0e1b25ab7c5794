package common

import (
	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/ui/theme"
)

// NewLineInput is a one-line input for the footer: prompt in th's
// prompt style, the text in its text style, at most limit characters,
// its cursor steady (it blinks nowhere, so it costs no frames).
func NewLineInput(th *theme.Theme, prompt string, limit int) textinput.Model {
	in := textinput.New()
	in.Cursor.SetMode(cursor.CursorStatic)
	in.Prompt = prompt
	in.PromptStyle = th.Prompt
	in.TextStyle = th.Text
	in.CharLimit = limit
	return in
}

// TypedLine is a line typed in the footer that applies as it is typed:
// a list's filter (Filter), a task's search. Open starts typing, Close
// ends it; the keys that keep or clear it are the caller's. Build it
// with NewTypedLine; the zero value is not usable.
type TypedLine struct {
	Input   textinput.Model
	editing bool
}

// NewTypedLine is a line not being typed, its input NewLineInput's.
func NewTypedLine(th *theme.Theme, prompt string, limit int) TypedLine {
	return TypedLine{Input: NewLineInput(th, prompt, limit)}
}

// Editing reports whether the line is being typed.
func (l *TypedLine) Editing() bool { return l.editing }

// Open starts typing, from text, the cursor at its end.
func (l *TypedLine) Open(text string) tea.Cmd {
	l.editing = true
	l.Input.SetValue(text)
	l.Input.CursorEnd()
	return l.Input.Focus()
}

// Close ends the typing.
func (l *TypedLine) Close() {
	l.editing = false
	l.Input.Blur()
}

// Type gives msg to the input and returns the line as it is now.
func (l *TypedLine) Type(msg tea.KeyMsg) (string, tea.Cmd) {
	var cmd tea.Cmd
	l.Input, cmd = l.Input.Update(msg)
	return l.Input.Value(), cmd
}

// TypingHint is what keep and clear do while a line is typed, then
// note in the muted style: "enter keep • esc clear · filters tasks".
func TypingHint(th *theme.Theme, keep, clear key.Binding, note string) string {
	return th.HelpKey.Render(keep.Help().Key) + " " + th.HelpDesc.Render("keep") + th.HelpSep.Render(" • ") +
		th.HelpKey.Render(clear.Help().Key) + " " + th.HelpDesc.Render("clear") + th.Muted.Render(note)
}
