// Package ui is the terminal dashboard: the root Bubble Tea model, the
// tasks view (Active / Interrupted / Terminal panes), the task detail, the
// agents view, the filter, the command line and the help screen. The inbox
// and journal views are Components supplied through Options (package
// ui/inbox builds them on ui/common and ui/theme).
//
// The root Model owns the *model.Fleet: watcher events arrive through one
// channel, are drained in batches by a tea.Cmd (at most one batch every
// BatchInterval) and applied with Fleet.Apply in Update. Every network call
// (GetTask for the detail history, CancelTask, the raw capture) runs in a
// tea.Cmd through the common.Backend interface; Update and View do no I/O.
// View renders only when something changed (or once a second for ages),
// and only the rows that are visible.
//
// Every piece of text that came from an agent passes through
// internal/sanitize before it reaches the terminal; the only escape
// sequences written are our own styling, the bell and the OSC 52 copy.
//
// ui may import bubbletea, bubbles, lipgloss, model, approvals,
// internal/sanitize, ui/common and ui/theme. It never imports a2aclient.
package ui
