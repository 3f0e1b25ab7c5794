// Package common holds what every screen of the dashboard shares: the
// Component interface each screen implements (and the optional
// InputCapturer, Titled, Footnoter and HelpNoter), the Context screens
// are built with, the Backend through which the UI asks the network for
// things (satisfied by *a2aclient.Manager, which ui never imports), the
// messages the root and its screens exchange and the Outbox that carries
// a screen's requests to the root, the armed Confirm of every dialog
// that writes to an agent, and small text helpers (Fit, Pad, ages, short
// ids) so that every screen cuts and writes them the same way.
//
// common may import bubbletea, bubbles/key, x/ansi, model, approvals
// (for its Arming), ui/theme and the A2A SDK's a2a types. It does no I/O
// and imports no screen.
package common
