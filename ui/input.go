package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/ui/common"
	"a2atop/ui/tasks"
)

// onKey routes a key: ctrl+c, then the overlay, then a screen taking
// typed text, then the global keys, then the screen shown.
func (m *Model) onKey(msg tea.KeyMsg) tea.Cmd {
	if key.Matches(msg, m.keys.Force) {
		return m.quit()
	}
	switch m.overlay {
	case overlayHelp:
		_, cmd := m.help.Update(msg)
		return tea.Batch(cmd, m.drain())
	case overlayCommand:
		return m.commandKey(msg)
	}
	if m.capturing() {
		return m.forward(msg)
	}
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 0 && (len(msg.Runes) > 1 || msg.Paste) {
		return m.burst(msg)
	}
	if cmd, ok := m.globalKey(msg); ok {
		return cmd
	}
	return m.forward(msg)
}

// burst handles keys that arrived in one read ("jjj" from a held key
// over a slow link, "/deployer" from tmux send-keys or a fast typist)
// one by one, as the person pressed them, each to what takes keys by
// then; once one of them has opened something that takes every key (the
// command line, a filter, a reply, the help, a confirmation), the rest
// of the read is its, in one message: typed into a field, or keys a
// dialog does not answer (a confirmation's yes counts only after a quiet
// moment, so "cy" opens the cancel and stops there).
//
// A paste is text, never keys: its first rune may open a field (":" the
// command line, a list's "/" filter) and the rest is typed into it; a
// paste that opens nothing is dropped, with a word in the footer.
func (m *Model) burst(msg tea.KeyMsg) tea.Cmd {
	first := tea.KeyMsg{Type: tea.KeyRunes, Runes: msg.Runes[:1], Alt: msg.Alt}
	if msg.Paste && !m.opensText(first) {
		m.status.set("a paste is text: it is typed only into a field (: command, / filter, a reply)", true, m.ctx.Now())
		return nil
	}
	var cmds []tea.Cmd
	for i, r := range msg.Runes {
		if i > 0 && m.takesKeys() {
			rest := tea.KeyMsg{Type: tea.KeyRunes, Runes: msg.Runes[i:], Alt: msg.Alt}
			return tea.Batch(append(cmds, m.onKey(rest))...)
		}
		if msg.Paste && i > 0 {
			break // what it opened does not take text
		}
		cmds = append(cmds, m.onKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}))
	}
	return tea.Batch(cmds...)
}

// opensText reports whether msg opens a field that takes text: the
// command line, or the screen's own (its filter).
func (m *Model) opensText(msg tea.KeyMsg) bool {
	if key.Matches(msg, m.keys.Command) {
		return true
	}
	o, ok := m.screens[m.view].(common.TextOpener)
	return ok && o.OpensText(msg)
}

// takesKeys reports whether an overlay or the screen shown takes every
// key now.
func (m *Model) takesKeys() bool { return m.overlay != overlayNone || m.capturing() }

// globalKey handles the keys every screen shares.
func (m *Model) globalKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := m.keys
	if i := m.viewKeyOf(msg); i >= 0 {
		return m.openView(m.views[i].Name), true
	}
	if key.Matches(msg, k.Tasks) {
		m.tellTasks(tasks.PlainMsg{})
	}
	for _, g := range []struct {
		b key.Binding
		v view
	}{{k.Tasks, viewTasks}, {k.Inbox, viewInbox}, {k.Agents, viewAgents}, {k.Journal, viewJournal}} {
		if key.Matches(msg, g.b) {
			return m.show(g.v), true
		}
	}
	switch {
	case key.Matches(msg, k.Command):
		return m.openCommand(), true
	case key.Matches(msg, k.Help):
		m.openHelp()
		return nil, true
	}
	return nil, false
}

// onMouse hands a press to the screen shown, in its own cells (the
// header is one line). Motion and releases change nothing on any screen:
// they leave a pending render as it was and add none.
func (m *Model) onMouse(msg tea.MouseMsg, wasDirty bool) tea.Cmd {
	if m.overlay != overlayNone || msg.Action != tea.MouseActionPress {
		m.dirty = wasDirty
		return nil
	}
	if msg.Y -= m.bodyTop(); msg.Y < 0 { // the header or the banner
		return nil
	}
	return m.forward(msg)
}

// capturing reports whether the screen shown takes every key.
func (m *Model) capturing() bool {
	c, ok := m.screens[m.view].(common.InputCapturer)
	return ok && c.Capturing()
}

// forward hands a message to the screen shown.
func (m *Model) forward(msg tea.Msg) tea.Cmd { return m.updateScreen(m.view, msg) }

// broadcast hands a message to every screen, shown or not: the fleet
// changed, the clock, or the answer to a screen's own Cmd, which must
// reach the inbox even when the person has switched to another view.
func (m *Model) broadcast(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	for v, c := range m.screens {
		if c != nil {
			cmds = append(cmds, m.updateScreen(view(v), msg))
		}
	}
	return tea.Batch(cmds...)
}

// updateScreen hands msg to the screen of view v, then does what it
// asked for through the outbox.
// tellTasks hands msg to the tasks screen (a filter, a saved view, a
// sort, an action on a task from the command line) and returns its Cmd;
// what it asked for through the outbox the caller drains, after it
// showed the tasks, as the keys' requests are.
func (m *Model) tellTasks(msg tea.Msg) tea.Cmd {
	next, cmd := m.screens[viewTasks].Update(msg)
	m.screens[viewTasks] = next
	return cmd
}

func (m *Model) updateScreen(v view, msg tea.Msg) tea.Cmd {
	next, cmd := m.screens[v].Update(msg)
	m.screens[v] = next
	return tea.Batch(cmd, m.drain())
}

// drain does what the screens asked for through the outbox, in order.
func (m *Model) drain() tea.Cmd {
	var cmds []tea.Cmd
	for _, msg := range m.ctx.Out.Take() {
		cmds = append(cmds, m.request(msg))
	}
	return tea.Batch(cmds...)
}

// quit quits once every screen that keeps something before the end
// (common.Quitter: a reply being written) has kept it.
func (m *Model) quit() tea.Cmd {
	var keep []tea.Cmd
	for _, c := range m.screens {
		if q, ok := c.(common.Quitter); ok {
			keep = append(keep, q.Quitting())
		}
	}
	return tea.Sequence(append(keep, tea.Quit)...)
}
