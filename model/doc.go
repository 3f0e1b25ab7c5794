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
//   - chains of interrupted tasks (BlockedBy, Chain, Waiters; see
//     Chains below for the direction) and row hints (Task.Hint for
//     what a task says about itself, Fleet.RowHint for what depends on
//     other tasks or on the agent).
//
// # Chains
//
// A task W is blocked by a task B when W is not terminal and names B, a
// known task that is not terminal either (a finished task blocks
// nothing: a refinement names its predecessor in referenceTaskIds too),
// in one of these places, searched in this order:
//  1. referenceTaskIds (or the agent's chain metadata key) on W's status message;
//  2. the same on W's history messages, newest first;
//  3. the agent's chain metadata key (Options.ChainKeys) in W's metadata.
//
// The key's value is a task id string or a list of them. Ids are looked
// up across all agents; among several tasks with one id the interrupted,
// then the most recently updated, wins. Fleet.BlockedBy returns B.
//
// A chain (Fleet.Chain) follows "blocked by" links between interrupted
// tasks only, root … leaf. The root is the task that waits: the planner's
// AUTH_REQUIRED task, whose status message references the deployer's
// task. The leaf is the task that waits on no interrupted task: the
// deployer's AUTH_REQUIRED task, which asks, and to which the approval
// goes. So the leaf of an interrupted task's chain is always interrupted.
// A cycle or a missing link ends the chain; nothing loops. Fleet.Waiters
// gives the tasks that wait on one task, for drawing a chain as a tree.
//
// # Hints
//
// Task.Hint is what a task says about itself and is kept up to date by
// Apply: "1 failed / 11 passed" for a COMPLETED task whose data artifact
// has a numeric "failed" above zero. What depends on other tasks or on the
// agent is computed on demand, for the visible rows, by Fleet.RowHint:
// "waiting on AGENT · SHORTID", "stale: agent unreachable", "gone: …".
// Both are raw agent data; the UI sanitizes them.
//
// # What model owns and may import
//
// model is pure: no I/O, no goroutines, no terminal code. A Fleet is owned
// by one goroutine (the UI's) and is not safe for concurrent use. Watchers
// in package a2aclient produce Events; the UI applies them in batches with
// Fleet.Apply.
//
// model may import the A2A SDK's a2a types and the standard library only.
// It must never import a2aclient, approvals, ui, bubbletea, bubbles or
// lipgloss: every other package may depend on model, so model depends on
// none of them.
package model
