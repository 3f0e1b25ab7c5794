// Package inbox draws the approvals inbox and the decision journal as
// ui/common Components: the queue of interrupted tasks with their chains
// drawn as trees, the whole question of the selected task, the reply
// editor (text, JSON data, or both), approve and deny with a confirmation
// that arms only after a quiet period, and the journal with each human
// decision and the agent's state changes as separate facts.
//
// Every network and disk call (send, reconcile, journal writes) runs in a
// tea.Cmd through *approvals.Service. Agent text goes through
// internal/sanitize before it reaches the terminal. In read-only mode
// every write action is hidden and inert.
//
// The root model builds the components with the factories New and
// NewJournal (ui.Options.Inbox and ui.Options.Journal), shows them on `2`
// and `4` (and :inbox, :journal), sends common.ReplyToMsg for `r` on the
// tasks view, and forwards FleetChangedMsg, TickMsg, keys and this
// package's result messages.
//
// inbox may import bubbletea, bubbles, lipgloss, ui/common, ui/theme,
// approvals, model, internal/sanitize and the SDK's a2a types.
package inbox
