package ui

import (
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/ui/common"
)

// show switches the body to view v: only a wired view (the inbox and the
// journal are optional), and the detail remembers where it was opened
// from.
func (m *Model) show(v view) tea.Cmd {
	if m.screens[v] == nil {
		name := viewNames[v]
		m.status.set("no "+name+" in this build (ui.Options."+optionName(name)+" is not set)", true, m.ctx.Now())
		return nil
	}
	if (v == viewDetail || v == viewCompose) && m.view != viewDetail && m.view != viewCompose {
		m.from = m.view
	}
	return m.setView(v)
}

// showWith shows v and hands its screen msg (the task to open, the task
// to reply to).
func (m *Model) showWith(v view, msg tea.Msg) tea.Cmd {
	cmd := m.show(v)
	if m.view != v {
		return cmd
	}
	return tea.Batch(cmd, m.updateScreen(v, msg))
}

// back closes the help, or leaves the view shown for the one before it:
// the detail and the new message for the view they were opened from, any
// other for the tasks.
func (m *Model) back() tea.Cmd {
	if m.overlay == overlayHelp {
		m.overlay = overlayNone
		return nil
	}
	to := viewTasks
	if m.view == viewDetail || m.view == viewCompose {
		to = m.from
	}
	if m.view == viewInbox && m.answerFrom != 0 {
		to = m.answerFrom // answered from there: back to where it was asked
	}
	return m.setView(to)
}

// setView shows v and tells the screens which left and which came on.
func (m *Model) setView(v view) tea.Cmd {
	if v == m.view {
		return nil
	}
	hide := m.updateScreen(m.view, common.HiddenMsg{})
	m.view, m.answerFrom = v, 0
	return tea.Batch(hide, m.updateScreen(v, common.ShownMsg{}))
}

// openHelp shows the help of the screen shown.
func (m *Model) openHelp() {
	m.help.Describe(m.screens[m.view], m.viewName(), commandBindings(m.offeredCommands()))
	m.overlay = overlayHelp
}

// optionName is the ui.Options field of a view: "Inbox" for "inbox".
func optionName(view string) string {
	if view == "" {
		return ""
	}
	return string(view[0]-'a'+'A') + view[1:]
}
