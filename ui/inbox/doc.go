// Package inbox draws the approvals inbox and the decision journal as
// ui/common Components: the queue of interrupted tasks with their chains
// drawn as trees (an answer on any task of a chain goes to the task at
// its end), the whole question of the selected task, the reply editor
// (text, JSON data, or both; a draft is kept per task until it is sent
// or discarded), approve and deny with a confirmation that names the
// task, shows its question above what it sends and arms only after a
// quiet period (common.Confirm), and the journal with each human
// decision and the agent's state changes as separate facts. Both filter
// with common.Filter, sort by their columns and keep their selection on
// its task or entry. Marked inbox rows (space, ctrl+a) take one answer
// for all of them (batch.go): one reason or reply, one confirmation
// listing every task, the tasks it skips and the payload, then each
// decision prepared, journaled and sent on its own, its outcome on its
// own row. The compose screen (compose.go) writes a message that starts
// a task (approvals.Service.PrepareNew): to an agent, or a follow-up of
// an ended task; the editor opens a field in $EDITOR on ctrl+e.
// A prompt another process (another dashboard, `a2atop reply`) answers
// while a dialog is open on it: the dialog says who answered, keeps what
// was typed and sends nothing; its row says so too, and a draft dropped
// because its task moved on says who answered (elsewhere.go).
//
// NewInbox and NewJournal build the components; InboxFactory and
// JournalFactory the factories ui.Options.Inbox and ui.Options.Journal
// take. The root shows them on `2` and `4` (and :inbox, :journal), hands
// the inbox common.ReplyToMsg when `r` is pressed on a task elsewhere,
// and sends both every FleetChangedMsg, TickMsg, JournalRefreshedMsg
// (what other processes appended to the journal: both rebuild on it) and
// the answers to their Cmds. They ask the root for the detail view (enter), to go back (esc,
// q) and to show a notice through Context.Out; the one that asked for a
// send or a reconcile says what it achieved.
//
// Every network and disk call (send, reconcile, journal writes) runs in a
// tea.Cmd through *approvals.Service. Agent text goes through
// internal/sanitize before it reaches the terminal. In read-only mode
// every write action is hidden and inert.
//
// inbox may import bubbletea, bubbles, lipgloss, ui/common, ui/theme,
// approvals, model, internal/sanitize and the SDK's a2a types; never
// package ui.
package inbox
