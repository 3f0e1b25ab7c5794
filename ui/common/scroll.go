package common

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
)

// Relabel is b, enabled or not as b is, with another description.
func Relabel(b key.Binding, desc string) key.Binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}

// KeyHint is k described for a prompt's hint: its keys, with desc.
func KeyHint(k key.Binding, desc string) key.Binding {
	name := k.Help().Key
	if name == "" {
		name = strings.Join(k.Keys(), "/")
	}
	return key.NewBinding(key.WithKeys(k.Keys()...), key.WithHelp(name, desc))
}

// wheelRows is how far one wheel notch scrolls.
const wheelRows = 3

// Wheel is how many rows a mouse press scrolls: up (negative) or down
// for the wheel, 0 for a button.
func Wheel(msg tea.MouseMsg) int {
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		return -wheelRows
	case tea.MouseButtonWheelDown:
		return wheelRows
	}
	return 0
}

// ScrollViewport scrolls by n lines (negative is up).
func ScrollViewport(vp *viewport.Model, n int) {
	if n < 0 {
		vp.ScrollUp(-n)
	} else {
		vp.ScrollDown(n)
	}
}

// Clamp is v within lo and hi.
func Clamp(v, lo, hi int) int {
	if v > hi {
		v = hi
	}
	if v < lo {
		v = lo
	}
	return v
}
