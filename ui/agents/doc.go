// Package agents is the agents screen, a ui/common Component: the list
// of agents (filtered with common.Filter, sorted by its columns, each row
// with its health, counts and a sparkline of its activity) and the
// selected agent in full (agents_card.go: its card, binding, capabilities,
// health, push status, the trust in its card, agents_trust.go, and its
// last raw exchanges with their latencies), read again every second while
// shown. On an agent that signs in with the OAuth 2.0 device flow, L opens
// the sign-in dialog (signin.go): the page and the code, copyable with OSC
// 52 (common.Clipboard), while it polls for the approval through the
// backend's SignInBackend.
//
// The root builds it with New and reaches it only through the Component
// contract and common.Context; it asks the root for anything (the tasks
// of an agent, a new message to it, going back) through Context.Out.
// Listed, Cursor, Selected, SigningIn and Card say what it shows.
//
// It may import ui/common, ui/theme, model, internal/sanitize and the
// charm libraries; never the root ui, nor another screen.
package agents
