package common

import (
	"time"

	"a2atop/approvals"
	"a2atop/model"
)

// The root model sends these to screens.

// FleetChangedMsg is sent by the root model to every screen after a
// batch of events changed the fleet. Result says which tasks entered or
// left the interrupted set.
type FleetChangedMsg struct {
	Result  model.ApplyResult
	Version uint64
}

// TickMsg is the 1 Hz clock the root sends every screen, shown or not,
// so that ages stay current.
type TickMsg struct{ Now time.Time }

// JournalRefreshedMsg is sent by the root to every screen each time it
// has read what other processes (another dashboard, `a2atop reply`)
// appended to the approvals journal, about once a second. Changed says
// the journal gained records (the inbox and the journal view rebuild on
// Service.Version); Decisions are the decisions made elsewhere since the
// last one (a dialog open on one of their prompts says so and sends
// nothing); Damage the damaged lines found. Err is why the journal could
// not be read; the root says it in the footer.
type JournalRefreshedMsg struct {
	approvals.Refreshed
	Err error
}

// JournalChangedMsg is sent by the root to every screen after it wrote
// to the journal itself (the states decided tasks went on to).
type JournalChangedMsg struct{}

// ShownMsg is sent to a screen as it comes on screen, HiddenMsg as it
// leaves: a screen that polls (the agents' raw capture) or redraws ages
// on the clock does so only while shown.
type (
	ShownMsg  struct{}
	HiddenMsg struct{}
)

// A screen sends these to the root through Context.Out (or returns them
// from a tea.Cmd).

// OpenTaskMsg asks the root to show a task's detail view; the root shows
// it and hands the detail screen the message.
type OpenTaskMsg struct{ Key model.TaskKey }

// ReplyToMsg asks the root to open the inbox's reply editor on an
// interrupted task: the root shows the inbox and hands it the message,
// and the inbox selects the task and opens its editor.
type ReplyToMsg struct{ Key model.TaskKey }

// BackMsg asks the root to leave what is on top: the help, else the
// screen shown, for the one before it. A screen sends it when esc has
// nothing of its own left to close.
type BackMsg struct{}

// StatusMsg is the one way a screen shows a notice: one line in the
// footer for a few seconds, what an action did ("canceled · test-runner
// 3f2a…") or, with Err, why it was refused or failed. The root sanitizes
// the text.
type StatusMsg struct {
	Text string
	Err  bool
	// Aside marks a notice the fleet made on its own (a task left the
	// pane): it does not replace an error shown a moment ago.
	Aside bool
}

// ApplyMsg asks the root to apply events to the fleet that came from the
// answer to one of the dashboard's own calls (the task a CancelTask
// returned), as it applies a batch from the watchers: every screen then
// gets the FleetChangedMsg.
type ApplyMsg struct{ Events []model.Event }

// CopyMsg asks the root to put Text (a task id) on the terminal's
// clipboard with OSC 52; the root says in the footer what it did. Every
// screen's copy key sends it: the same key everywhere, never a
// confirmation's yes.
type CopyMsg struct{ Text string }

// DecideMsg asks the root to have the inbox answer several tasks at once
// (marked on another screen): approve them, deny them with one reason,
// or send them one reply. The root shows the inbox and hands it the
// message; the inbox marks the tasks and opens one confirmation for all
// of them (after the reason or the reply is written). Each decision is
// then journaled and sent on its own, and its outcome shown task by task.
type DecideMsg struct {
	Kind approvals.Kind
	Keys []model.TaskKey
}

// ComposeMsg asks the root for the editor of a new message: to Agent
// ("" lets the person choose), starting a new task; with After set, a
// follow-up of that ended task, in its context and naming it in
// referenceTaskIds. The root shows the compose screen and hands it the
// message.
type ComposeMsg struct {
	Agent string
	After model.TaskKey
}

// ShowTasksMsg asks the root for the tasks screen with Filter in effect
// (enter on an agent: "agent:NAME").
type ShowTasksMsg struct{ Filter string }

// ThemeChangedMsg is sent by the root to every screen after the colours
// changed (:theme): a screen that keeps paints of the theme's styles
// makes them again.
type ThemeChangedMsg struct{}
