package ui

import (
	"a2atop/ui/agents"
	"a2atop/ui/detail"
	"a2atop/ui/internal/uitest"
	"a2atop/ui/tasks"

	tea "github.com/charmbracelet/bubbletea"
)

// press sends keys one by one, feeding back what their Cmds produce
// (one level: a fetch result, a cancel result).
func press(m *Model, keys ...string) {
	for _, k := range keys {
		_, cmd := m.Update(uitest.Key(k))
		settle(m, cmd)
	}
}

// settle runs cmd and feeds its messages back until nothing is left,
// dropping tea.Quit.
func settle(m *Model, cmd tea.Cmd) {
	for _, msg := range uitest.Run(cmd) {
		if _, ok := msg.(tea.QuitMsg); ok {
			continue
		}
		_, next := m.Update(msg)
		settle(m, next)
	}
}

// tasksOf, detailOf and agentsOf are the screens of the dashboard.
func tasksOf(m *Model) *tasks.Screen   { return m.screens[viewTasks].(*tasks.Screen) }
func detailOf(m *Model) *detail.Screen { return m.screens[viewDetail].(*detail.Screen) }
func agentsOf(m *Model) *agents.Screen { return m.screens[viewAgents].(*agents.Screen) }

// confirming reports whether the screen shown asks whether to cancel.
func confirming(m *Model) bool {
	switch s := m.screens[m.view].(type) {
	case *tasks.Screen:
		return s.Confirming()
	case *detail.Screen:
		return s.Confirming()
	}
	return false
}

// sortCol is the tasks' sort column named name.
func sortCol(name string) int {
	col, _, _ := tasks.SortNamed(name)
	return col
}

// resort reads the tasks panes again in the sort in effect, as a change
// of the sort does.
func resort(m *Model) {
	s := tasksOf(m).Sort()
	tasksOf(m).Update(tasks.SortMsg{Col: s.Col(), Desc: s.Desc()})
}

// sized is a model at a terminal size.
func sized(m *Model, w, h int) *Model {
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}
