package tasks

import (
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/model"
	"a2atop/ui/common"
)

// The messages the root sends the tasks screen (besides the ones every
// screen gets, and common.ShowTasksMsg, which puts a filter in effect).

// ApplyViewMsg puts a saved view in effect (its key 5-9, :view NAME).
type ApplyViewMsg struct{ View SavedView }

// PlainMsg takes the saved view in effect off (the tasks' key, 1):
// every column, newest first, no filter.
type PlainMsg struct{}

// SortMsg sorts the panes by column Col (SortNamed), desc when Desc; the
// selection stays on its task (:sort).
type SortMsg struct {
	Col  int
	Desc bool
}

// ActMsg runs Do on Task through the screen's task actions (:cancel,
// :reply, :follow-up ID), which answer as the keys do; its Cmd is Do's.
type ActMsg struct {
	Task *model.Task
	Do   func(a *common.TaskActions, t *model.Task) tea.Cmd
}
