// Package tasks is the tasks screen, the dashboard's first, a ui/common
// Component: one pane per class of task (active, interrupted, terminal,
// and unknown while it holds any; tasks_panes.go), side by side when the
// terminal is wide, their rows and columns fitted to the width
// (tasks_columns.go, tasks_render.go), sorted by any column from the
// model's indexes where it keeps the order and sorted here, again at
// most once a second, where it does not (tasks_sort.go), the tasks that
// ended lately and hide_terminal_after (tasks_recent.go), the `/`
// filter, marks for an action on many, z to zoom a pane, and the saved
// views drawn as tabs over the panes (views.go). The task keys (cancel,
// reply, approve, deny, follow-up, copy) are common.TaskActions, shared
// with the detail screen.
//
// The root builds it with New (its keys, task actions, first sort,
// hide_terminal_after and the saved views) and reaches it only through
// the Component contract and common.Context: it puts a filter in effect
// with common.ShowTasksMsg, a saved view with ApplyViewMsg, takes it off
// with PlainMsg, sorts with SortMsg and runs the command line's task
// actions with ActMsg (msgs.go); SortNames, SortNamed and IsColumn are
// the columns :sort and the config's views name (names.go). The screen
// asks the root for anything (open a task, a new message, a notice; the
// task actions hand tasks to the inbox) through Context.Out. The
// accessors of state.go say what it shows.
//
// It may import ui/common, ui/theme, model, internal/sanitize and the
// charm libraries; never the root ui, nor another screen.
package tasks
