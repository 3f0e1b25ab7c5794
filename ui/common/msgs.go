package common

import (
	"time"

	"a2atop/model"
)

// FleetChangedMsg is sent by the root model to its components after a
// batch of watcher events changed the fleet. Result says which tasks
// entered or left the interrupted set.
type FleetChangedMsg struct {
	Result  model.ApplyResult
	Version uint64
}

// TickMsg is the 1 Hz clock the root forwards so that ages stay current.
type TickMsg struct{ Now time.Time }

// ReplyToMsg is sent by the root to the inbox component when the person
// presses the reply key on an interrupted task in another view; the inbox
// should select that task and open its reply editor.
type ReplyToMsg struct{ Key model.TaskKey }

// OpenTaskMsg asks the root model to show a task's detail view. A
// component returns it from a tea.Cmd.
type OpenTaskMsg struct{ Key model.TaskKey }

// StatusMsg puts a one-line notice in the footer for a few seconds: what
// an action did ("canceled · test-runner 3f2a…") or why it failed.
type StatusMsg struct {
	Text string
	Err  bool
}

// BackMsg asks the root model to leave the component's view for the
// previous one: a component returns it (from a tea.Cmd) when esc has
// nothing of its own left to close.
type BackMsg struct{}
