package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"a2atop/ui/theme"
)

// promptModel is the command line's one-line input in the footer (:);
// the lists' filters are common.Filter. Tab lists and completes
// (command_list.go).
type promptModel struct {
	input textinput.Model
	// listing is true once tab (or ↓) listed what the line could become
	// (command_list.go); sel is the line chosen there, -1 for none.
	listing bool
	sel     int
}

func newPrompt(th *theme.Theme) promptModel {
	in := textinput.New()
	in.Cursor.SetMode(cursor.CursorStatic)
	in.PromptStyle = th.Prompt
	in.TextStyle = th.Text
	in.CompletionStyle = th.Muted
	in.CharLimit = 256
	return promptModel{input: in, sel: -1}
}

// set puts s on the line, the cursor at its end.
func (p *promptModel) set(s string) {
	p.input.SetValue(s)
	p.input.CursorEnd()
}

// promptHintWidth is what the footer keeps beside the input for its keys
// when the terminal is wide enough.
const promptHintWidth = 46

// promptMinInput is the narrowest input the hint leaves room for.
const promptMinInput = 32

func (p *promptModel) setWidth(w int) {
	if w-promptHintWidth >= promptMinInput {
		w -= promptHintWidth
	}
	p.input.Width = min(max(w-4, 1), 60)
}

// open starts the input with prefix (":") and value.
func (p *promptModel) open(prefix, value string) tea.Cmd {
	p.listing, p.sel = false, -1
	p.input.Prompt = prefix
	p.input.ShowSuggestions = false // the command line lists its own (command_list.go)
	p.input.SetSuggestions(nil)
	p.input.SetValue(value)
	p.input.CursorEnd()
	return p.input.Focus()
}

func (p *promptModel) close() { p.input.Blur() }

func (p *promptModel) value() string { return p.input.Value() }

// update feeds a key to the input.
func (p *promptModel) update(msg tea.KeyMsg) tea.Cmd {
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	return cmd
}

// line is the input and, when both fit in w cells, hint: what enter, esc
// (and tab) do in it. esc clears the filter, which a new user would not
// guess.
func (p *promptModel) line(hint string, w int) string {
	line := p.input.View()
	room := w - 2 - lipgloss.Width(hint)
	if lipgloss.Width(line) > room && ansi.StringWidth(strings.TrimRight(ansi.Strip(line), " ")) <= room {
		// The input pads itself to its width, and a completion shown
		// adds its tail after the padding: cut padding, never text.
		line = ansi.Truncate(line, room, "")
	}
	if lipgloss.Width(line) <= room {
		line += "  " + hint
	}
	return ansi.Truncate(line, w, "")
}
