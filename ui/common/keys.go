package common

import "github.com/charmbracelet/bubbles/key"

// Offer is b as a footer shows it: disabled (so not shown) unless on. A
// footer offers only what the selected thing takes; a key pressed anyway
// still says why nothing happens.
func Offer(b key.Binding, on bool) key.Binding {
	b.SetEnabled(b.Enabled() && on)
	return b
}
