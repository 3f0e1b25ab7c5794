package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// commandNames are what the command line knows, in completion order:
// the views, then quit.
func commandNames() []string { return []string{"tasks", "inbox", "agents", "journal", "quit"} }

// openCommand starts the command line.
func (m *Model) openCommand() tea.Cmd {
	m.overlay = overlayCommand
	return m.prompt.open(":", "", true)
}

// commandKey edits the command line: Accept runs it, Back closes it.
func (m *Model) commandKey(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Back):
		m.overlay = overlayNone
		m.prompt.close()
		return nil
	case key.Matches(msg, m.keys.Accept):
		m.overlay = overlayNone
		m.prompt.close()
		return m.runCommand(m.prompt.value())
	}
	return m.prompt.update(msg)
}

// commandLine is the footer while the command line is open.
func (m *Model) commandLine() string {
	tab := m.prompt.input.KeyMap.AcceptSuggestion
	hint := shortKeys(m.hm, []key.Binding{keyHint(tab, "complete"), keyHint(m.keys.Accept, "run"),
		keyHint(m.keys.Back, "close")}, promptHintWidth)
	return m.prompt.line(hint, m.width)
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
	if v, ok := viewNamed(match[0]); ok {
		return m.show(v)
	}
	return tea.Quit
}
