package common

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
)

// Bind is a binding for keys with its help.
func Bind(help, desc string, keys ...string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
}

// ListKeys move a cursor or scroll a page.
type ListKeys struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
}

// DefaultListKeys are the vi and arrow keys for moving.
func DefaultListKeys() ListKeys {
	return ListKeys{
		Up:       Bind("↑/k", "up", "up", "k"),
		Down:     Bind("↓/j", "down", "down", "j"),
		PageUp:   Bind("pgup", "page up", "pgup"),
		PageDown: Bind("pgdn", "page down", "pgdown"),
		Top:      Bind("g", "top", "g", "home"),
		Bottom:   Bind("G", "bottom", "G", "end"),
	}
}

// All is the group the full help shows.
func (k ListKeys) All() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}
}

// Page scrolls vp for the page keys (pgup, pgdn, g, G) and reports
// whether msg was one of them.
func (k ListKeys) Page(vp *viewport.Model, msg tea.KeyMsg) bool {
	switch {
	case key.Matches(msg, k.PageUp):
		vp.PageUp()
	case key.Matches(msg, k.PageDown):
		vp.PageDown()
	case key.Matches(msg, k.Top):
		vp.GotoTop()
	case key.Matches(msg, k.Bottom):
		vp.GotoBottom()
	default:
		return false
	}
	return true
}
