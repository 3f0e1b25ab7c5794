// Package model holds everything the dashboard knows about the fleet, as
// plain data: agents, their tasks, the chains between tasks, and the
// queries the screens ask of them.
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
