// Package common holds what every screen of the dashboard shares: the
// Component interface each screen implements (and the optional
// InputCapturer, Titled, Footnoter, HelpNoter and TextOpener), the
// Context screens are built with, the Backend through which the UI asks
// the network for things (satisfied by *a2aclient.Manager, which ui
// never imports), the messages the root and its screens exchange and the
// Outbox that carries a screen's requests to the root, the armed Confirm
// of every dialog that writes to an agent, the `/` Filter every list
// takes (one syntax, model.ParseFilter, and one footer line naming the
// list it filters), the words for damaged journal lines that refuse
// decisions (JournalDamage: the root's banner, the inbox's refusals),
// and small text helpers (Fit, Pad, FirstFit, ages, short ids) so that
// every screen cuts and writes them the same way; what lists share for
// actions on many (Marks, Results, the DecideMsg and ComposeMsg
// requests), their sort (Sort), the names [keys] gives every key
// (Actions, Rebind, CheckClashes) and the count of events per agent and
// minute (Activity).
//
// common may import bubbletea, bubbles (key, textinput, cursor),
// lipgloss, x/ansi, model, approvals (for its Arming),
// internal/sanitize, ui/theme and the A2A SDK's a2a types. It does no
// I/O and imports no screen.
package common
