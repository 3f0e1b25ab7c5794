package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/ui/theme"
)

// commandNames are what the command line knows, in completion order.
func commandNames() []string { return []string{"tasks", "inbox", "agents", "journal", "quit"} }

// promptModel is the one-line input of the filter (/) and the command
// line (:). Completion on tab comes from textinput's suggestions.
type promptModel struct {
	input    textinput.Model
	th       *theme.Theme
	commands []string
}

func newPrompt(th *theme.Theme) promptModel {
	in := textinput.New()
	in.Cursor.SetMode(cursor.CursorStatic)
	in.PromptStyle = th.Prompt
	in.TextStyle = th.Text
	in.CompletionStyle = th.Muted
	in.CharLimit = 256
	return promptModel{input: in, th: th, commands: commandNames()}
}

// promptHintWidth is what the footer keeps beside the input for its keys
// when the terminal is wide enough.
const promptHintWidth = 40

func (p *promptModel) setWidth(w int) {
	if w >= 2*promptHintWidth {
		w -= promptHintWidth
	}
	p.input.Width = min(max(w-4, 1), 60)
}

// promptHint says what enter, esc (and tab) do in the open prompt: esc
// clears the filter, which a new user would not guess. The keys are
// the KeyMap's and the input's own.
func (m *Model) promptHint() string {
	says := func(k key.Binding, desc string) key.Binding {
		name := k.Help().Key
		if name == "" {
			name = strings.Join(k.Keys(), "/")
		}
		return key.NewBinding(key.WithKeys(k.Keys()...), key.WithHelp(name, desc))
	}
	if m.promptIsFilter() {
		return m.shortKeys([]key.Binding{says(m.keys.Accept, "keep"), says(m.keys.Back, "clear")}, promptHintWidth)
	}
	tab := m.prompt.input.KeyMap.AcceptSuggestion
	return m.shortKeys([]key.Binding{says(tab, "complete"), says(m.keys.Accept, "run"), says(m.keys.Back, "close")}, promptHintWidth)
}

// open starts the filter (with its current text) or the command line.
func (p *promptModel) open(prefix, value string, suggest bool) tea.Cmd {
	p.input.Prompt = prefix
	p.input.ShowSuggestions = suggest
	if suggest {
		p.input.SetSuggestions(p.commands)
	} else {
		p.input.SetSuggestions(nil)
	}
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

func (p *promptModel) view() string { return p.input.View() }

// promptKey handles keys while the filter or command line is open.
func (m *Model) promptKey(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Back):
		m.overlay = overlayNone
		m.prompt.close()
		if m.tasks.filterText() != "" && m.promptIsFilter() {
			m.tasks.setFilter("")
		}
		return nil
	case key.Matches(msg, m.keys.Accept):
		m.overlay = overlayNone
		m.prompt.close()
		if m.promptIsFilter() {
			return nil
		}
		return m.runCommand(m.prompt.value())
	}
	cmd := m.prompt.update(msg)
	if m.promptIsFilter() {
		m.tasks.setFilter(m.prompt.value())
	}
	return cmd
}

func (m *Model) promptIsFilter() bool { return m.prompt.input.Prompt == "/" }

// openFilter starts the live filter of the tasks view.
func (m *Model) openFilter() tea.Cmd {
	if m.view != viewTasks {
		m.view = viewTasks
	}
	m.overlay = overlayFilter
	return m.prompt.open("/", m.tasks.filterText(), false)
}

// openCommand starts the command line.
func (m *Model) openCommand() tea.Cmd {
	m.overlay = overlayCommand
	return m.prompt.open(":", "", true)
}

// runCommand runs a command line: a unique prefix of a command is enough.
func (m *Model) runCommand(line string) tea.Cmd {
	name := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), ":"))
	if name == "" {
		return nil
	}
	var match []string
	commands := m.prompt.commands
	for _, c := range commands {
		if c == name {
			match = []string{c}
			break
		}
		if strings.HasPrefix(c, name) {
			match = append(match, c)
		}
	}
	if name == "q" {
		match = []string{"quit"}
	}
	if len(match) != 1 {
		m.status.set("unknown command :"+name+" — try :"+strings.Join(commands, ", :"), true, m.ctx.Now())
		return nil
	}
	switch match[0] {
	case "tasks":
		return m.show(viewTasks)
	case "inbox":
		return m.show(viewInbox)
	case "agents":
		return m.show(viewAgents)
	case "journal":
		return m.show(viewJournal)
	}
	return tea.Quit
}
