package common

import "github.com/charmbracelet/bubbles/key"

// TaskKeys act on a task, on the tasks and the detail screens: the one
// selected, or on the tasks screen every marked one. Cancel, Reply,
// Approve, Deny and FollowUp write to agents: disabled in read-only.
// Confirm and Decline answer the cancel's confirmation.
type TaskKeys struct {
	Cancel, Reply, Approve, Deny, FollowUp, Copy key.Binding
	Confirm, Decline                             key.Binding `keys:"dialog"`
	// Results scroll and close the outcomes of a cancel of several.
	Results ResultKeys `keys:"results"`
}

// DefaultTaskKeys are c, r, a, d, f, Y and the confirmation's y and
// n/esc. Copy is Y on every screen, so that it never meets a
// confirmation's yes.
func DefaultTaskKeys() TaskKeys {
	return TaskKeys{
		Cancel:   Bind("c", "cancel task", "c"),
		Reply:    Bind("r", "reply", "r"),
		Approve:  Bind("a", "approve", "a"),
		Deny:     Bind("d", "deny", "d"),
		FollowUp: Bind("f", "follow-up", "f"),
		Copy:     Bind("Y", "copy id", "Y"),
		Confirm:  Bind("y", "yes", "y"),
		Decline:  Bind("n/esc", "no", "n", "esc"),
		Results:  DefaultResultKeys(),
	}
}

// All is the group the full help shows: the actions, then the answers
// of the cancel's confirmation and the key that closes the outcomes of
// a cancel of several (which the footer shows while they are open).
func (k TaskKeys) All() []key.Binding {
	return []key.Binding{k.Cancel, k.Reply, k.Approve, k.Deny, k.FollowUp, k.Copy,
		Relabel(k.Confirm, "confirm: yes"), Relabel(k.Decline, "confirm: no"), Relabel(k.Results.Close, "close outcomes")}
}
