package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/model"
	"a2atop/ui/common"
)

// wheelRows is how far one wheel notch scrolls.
const wheelRows = 3

// onKey routes a key: ctrl+c, then the overlay, then a capturing
// component, then the global keys, then the view.
func (m *Model) onKey(msg tea.KeyMsg) tea.Cmd {
	if key.Matches(msg, m.keys.Force) {
		return tea.Quit
	}
	switch m.overlay {
	case overlayHelp:
		return m.helpKey(msg)
	case overlayFilter, overlayCommand:
		return m.promptKey(msg)
	case overlayConfirm:
		return m.confirmKey(msg)
	}
	if c, ok := m.component().(common.InputCapturer); ok && c.Capturing() {
		return m.forward(msg)
	}
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
		return m.eachRune(msg)
	}
	if cmd, ok := m.globalKey(msg); ok {
		return cmd
	}
	switch m.view {
	case viewTasks:
		return m.tasksKey(msg)
	case viewDetail:
		return m.detailKey(msg)
	case viewAgents:
		return m.agentsKey(msg)
	}
	if key.Matches(msg, m.keys.Quit) {
		m.back()
		return nil
	}
	return m.forward(msg)
}

// eachRune handles keys that arrived in one read ("jjj" from a held key
// over a slow link) one by one, as the person pressed them. Only outside
// prompts and dialogs: a dialog ignores such a burst rather than take it
// as an answer.
func (m *Model) eachRune(msg tea.KeyMsg) tea.Cmd {
	var cmds []tea.Cmd
	for _, r := range msg.Runes {
		if m.overlay != overlayNone {
			break
		}
		cmds = append(cmds, m.onKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}))
	}
	return tea.Batch(cmds...)
}

// globalKey handles the keys every view shares.
func (m *Model) globalKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Tasks):
		return m.show(viewTasks), true
	case key.Matches(msg, k.Inbox):
		return m.show(viewInbox), true
	case key.Matches(msg, k.Agents):
		return m.show(viewAgents), true
	case key.Matches(msg, k.Journal):
		return m.show(viewJournal), true
	case key.Matches(msg, k.Command):
		return m.openCommand(), true
	case key.Matches(msg, k.Help):
		m.overlay = overlayHelp
		return nil, true
	}
	return nil, false
}

// tasksKey handles the tasks view: actions on the selected task, then
// moving.
func (m *Model) tasksKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	sel := m.tasks.selected()
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Back):
		m.tasks.setFilter("")
	case key.Matches(msg, k.Filter):
		return m.openFilter()
	case key.Matches(msg, k.Open):
		if sel != nil {
			return m.openDetail(sel.Key)
		}
	default:
		if cmd, ok := m.taskAction(msg, sel); ok {
			return cmd
		}
		m.tasks.update(msg)
	}
	return nil
}

// taskAction handles cancel, reply and copy on a task (tasks and detail).
func (m *Model) taskAction(msg tea.KeyMsg, t *model.Task) (tea.Cmd, bool) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Cancel):
		m.askCancel(t)
		return nil, true
	case key.Matches(msg, k.Reply):
		return m.reply(t), true
	case key.Matches(msg, k.Copy):
		if t == nil {
			return nil, true
		}
		return m.copyID(t.Key), true
	}
	return nil, false
}

// detailKey handles the detail view.
func (m *Model) detailKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Back, k.Quit):
		if m.detail.raw { // back from the raw JSON is the task, not the list
			m.detail.toggleRaw()
			return nil
		}
		if cmd, ok := m.detail.pop(m.history); ok {
			return cmd
		}
		m.back()
		return nil
	case key.Matches(msg, k.Open):
		return m.followLink()
	}
	t := m.ctx.Fleet.Task(m.detail.key)
	if cmd, ok := m.taskAction(msg, t); ok {
		return cmd
	}
	m.detail.update(msg)
	return nil
}

// followLink opens the selected referenceTaskIds link: the fleet's task
// with that id (same agent first), else asks the same agent for it.
func (m *Model) followLink() tea.Cmd {
	id := m.detail.selectedLink()
	if id == "" {
		return nil
	}
	target := model.TaskKey{Agent: m.detail.key.Agent, ID: id}
	if m.ctx.Fleet.Task(target) == nil {
		if ts := m.ctx.Fleet.Lookup(id); len(ts) > 0 {
			target = ts[0].Key
		}
	}
	return m.detail.follow(target, m.history)
}

// agentsKey handles the agents view.
func (m *Model) agentsKey(msg tea.KeyMsg) tea.Cmd {
	if key.Matches(msg, m.keys.Back, m.keys.Quit) {
		m.back()
		return nil
	}
	return m.agents.update(msg)
}

// onMouse scrolls with the wheel and selects with a click; it reports
// whether the event did anything (motion and releases do not).
func (m *Model) onMouse(msg tea.MouseMsg) (tea.Cmd, bool) {
	if m.overlay != overlayNone {
		return nil, false
	}
	x, y := msg.X, msg.Y-1 // body coordinates: the header is one line
	wheel := 0
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		wheel = -wheelRows
	case tea.MouseButtonWheelDown:
		wheel = wheelRows
	}
	click := msg.Button == tea.MouseButtonLeft && msg.Action == tea.MouseActionPress
	body := msg
	body.Y = y // components get coordinates in their own cells
	if wheel == 0 && !click {
		if c := m.component(); c != nil {
			return m.forward(body), true
		}
		return nil, false
	}
	switch m.view {
	case viewTasks:
		if wheel != 0 {
			m.tasks.scroll(m.tasks.paneAt(x, y), wheel)
		} else {
			m.tasks.click(x, y)
		}
	case viewDetail:
		scrollViewport(&m.detail.vp, wheel)
	case viewAgents:
		if wheel != 0 {
			scrollViewport(&m.agents.vp, wheel)
		} else {
			return m.agents.click(y), true
		}
	default:
		return m.forward(body), true
	}
	return nil, true
}
