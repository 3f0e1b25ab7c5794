// Package ui is the terminal dashboard: the root Bubble Tea model. The
// tasks screen (ui/tasks), the task detail (ui/detail), the agents
// screen (ui/agents) and the help (ui/help) are packages of their own
// the root builds and reaches only as Components;
// the inbox, the journal and the compose screen (a new message, n; a
// follow-up, f) are Components too, supplied through Options by package
// ui/inbox.
//
// The root Model owns what is global: the size (it alone handles
// tea.WindowSizeMsg and calls SetSize), the *model.Fleet and the one path
// into it (watcher events arrive through one channel, are drained in
// batches by a tea.Cmd one batch every BatchInterval while they follow
// closely, the few batches right after a lone one at once, applied
// with Fleet.Apply in Update, and every screen gets a FleetChangedMsg),
// the 1 Hz clock, the approvals journal it follows (when the file is
// written, or on the clock, a
// tea.Cmd reads what other processes appended, Service.Refresh, and every
// screen gets a JournalRefreshedMsg; after each batch the states decided
// tasks went on to are recorded, Service.Observations then Observe in a
// tea.Cmd; while damaged lines of it refuse decisions, Service.Blocking,
// a one-line banner under the header names them on every screen and the
// body is a line shorter), which screen is shown, the command line, the
// help, the notice in the footer and the global keys (1-4, :, ?,
// ctrl+c). It hands
// the screen shown its keys and mouse presses, and does what a screen
// asks through the common.Outbox (show a task, go back, reply, a notice,
// apply an answer) before the next message. Each screen has its KeyMap
// (tasks, detail, agents, help), handles its own keys, and does its
// network calls (GetTask, CancelTask, the raw capture) in tea.Cmds
// through common.Backend: Update and View do no I/O. Every list (the
// tasks panes, the inbox, the journal, the agents) has the same `/`
// filter, common.Filter: while it is typed the screen captures every key,
// and keys that arrived in one read with the `/` (or the `:` of the
// command line) are typed into it. View renders only when something
// changed (or once a second for ages), and a screen draws only the rows
// that are visible.
//
// What a person at the keys reaches for: rows marked with space (ctrl+a
// every row shown) take one action for all of them, with one
// confirmation and each task's outcome on its own row (common.Marks,
// common.Results; the tasks screen cancels, the inbox answers, and a,
// d, r on the tasks screen hand the marks to the inbox); every list
// sorts by any column (< >, shift and a column's letter; common.Sort),
// from the model's indexes where it keeps the order and sorted here,
// again at most once a second, where it does not (ui/tasks); z
// zooms a pane; Options.HideTerminalAfter keeps old terminal tasks off
// their pane; the command line takes arguments with completion
// (command.go); Options.Views are saved views on 5-9 and :view;
// Options.Notify writes OSC 9 or OSC 777 notifications and the title's
// count; the pictures (pictures.go: the header's stacked bar, the
// detail's timeline and streaming progress, the agents' sparklines) are
// drawn from the fleet (Fleet.Timeline, Fleet.Streams) and the root's
// count of events per agent and minute (common.Activity). Every key is
// a key.Binding of a KeyMap that [keys] can rebind by name
// (KeyMap.Actions, common.Rebind), every colour a token of the theme.
//
// To add a screen: write a package ui/<name> with a type that implements
// common.Component (and InputCapturer, Titled, Footnoter, HelpNoter where
// they apply) with a KeyMap and DefaultKeyMap of its own, its key
// handling in its Update, and its requests to the root through
// Context.Out (what it shares with other screens goes in ui/common); add
// a view constant and its name in model.go, build it in newScreens, and
// give it a global key and a command if it is reached from everywhere.
//
// Every piece of text that came from an agent passes through
// internal/sanitize before it reaches the terminal; the only escape
// sequences written are our own styling, the bell and the OSC 52 copy.
//
// ui may import bubbletea, bubbles, lipgloss, model, approvals,
// internal/sanitize, ui/common, ui/theme and the screens ui/tasks,
// ui/detail, ui/agents and ui/help. It never imports a2aclient (main wires it in as the Backend)
// nor ui/inbox (Options takes its factories).
package ui
