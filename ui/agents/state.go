package agents

import "a2atop/model"

// What the screen shows, read by the root's tests through the model they
// drive (the screen is built and updated by the root only).

// Listed is the agents the list shows, in its order: all, or those the
// filter matches.
func (v *Screen) Listed() []*model.Agent { return v.list }

// Cursor is the row of the selected agent in Listed.
func (v *Screen) Cursor() int { return v.cursor }

// Selected is the name of the selected agent ("" before any).
func (v *Screen) Selected() string { return v.name }

// SigningIn reports whether the device sign-in dialog is open.
func (v *Screen) SigningIn() bool { return v.dialog != nil }

// Card is the selected agent in full, as the card pane draws it.
func (v *Screen) Card() string { return v.card() }
