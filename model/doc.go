// Package model holds everything the dashboard knows about the fleet, as
// plain data: agents, their tasks, the chains between tasks, and the
// queries the screens ask of them.
//
// It owns:
//   - the shared vocabulary watchers, model and UI speak (Event, Health,
//     AgentInfo, Source, Exchange) and the state classes (Class, ClassOf,
//     NormalizeState, ShortState), including A2A 0.3 state names;
//   - Fleet: agents and tasks keyed by TaskKey, updated by Fleet.Apply
//     under the rules documented there (terminal is final, older never
//     overwrites newer, repeats are no-ops, retention caps);
//   - the pane queries (Count, Page, Index, Interrupted) with Filter and
//     SortBy, served from per-(class, query) ordered indexes that are
//     kept up to date incrementally, so no frame sorts the fleet;
//   - chains of interrupted tasks (BlockedBy, Chain, Waiters; the
//     direction is documented in chain.go) and row hints (Task.Hint for
//     what a task says about itself, Fleet.RowHint for what depends on
//     other tasks or on the agent).
//
// It is pure: no I/O, no goroutines, no terminal code. A Fleet is owned by
// one goroutine (the UI's) and is not safe for concurrent use. Watchers in
// package a2aclient produce Events; the UI applies them in batches with
// Fleet.Apply.
//
// model may import the A2A SDK's a2a types and the standard library only.
// It must never import a2aclient, approvals, ui, bubbletea, bubbles or
// lipgloss.
package model
