package ui

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
)

// KeyMap is every key the dashboard's own views answer to. The help
// screen and the footer are built from these same bindings, so what the
// help says is what the keys do.
type KeyMap struct {
	// Views.
	Tasks, Inbox, Agents, Journal key.Binding
	// Moving.
	NextPane, PrevPane      key.Binding
	Up, Down                key.Binding
	PageUp, PageDown        key.Binding
	Top, Bottom             key.Binding
	Open, Back, Quit, Force key.Binding
	// Actions. Cancel and Reply write to agents: disabled in read-only.
	Cancel, Reply, Copy key.Binding
	Raw                 key.Binding // detail: raw JSON of the snapshot
	NextLink, PrevLink  key.Binding // detail: select a referenceTaskIds link
	// Prompts. Accept runs the command line or keeps the filter.
	Filter, Command, Help, Accept key.Binding
	// Confirmation dialogs.
	Confirm, Decline key.Binding
}

// DefaultKeyMap returns the keys users and scripts rely on (issue 5).
func DefaultKeyMap() KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Tasks:    b("1", "tasks", "1"),
		Inbox:    b("2", "inbox", "2"),
		Agents:   b("3", "agents", "3"),
		Journal:  b("4", "journal", "4"),
		NextPane: b("tab", "next pane", "tab"),
		PrevPane: b("shift+tab", "prev pane", "shift+tab"),
		Up:       b("↑/k", "up", "up", "k"),
		Down:     b("↓/j", "down", "down", "j"),
		PageUp:   b("pgup", "page up", "pgup"),
		PageDown: b("pgdn", "page down", "pgdown"),
		Top:      b("g", "top", "g", "home"),
		Bottom:   b("G", "bottom", "G", "end"),
		Open:     b("enter", "open", "enter"),
		Back:     b("esc", "back", "esc"),
		Quit:     b("q", "back/quit", "q"),
		Force:    b("ctrl+c", "quit", "ctrl+c"),
		Cancel:   b("c", "cancel task", "c"),
		Reply:    b("r", "reply", "r"),
		Copy:     b("y", "copy id", "y"),
		Raw:      b("J", "raw json", "J"),
		NextLink: b("tab", "next link", "tab"),
		PrevLink: b("shift+tab", "prev link", "shift+tab"),
		Filter:   b("/", "filter", "/"),
		Command:  b(":", "command", ":"),
		Help:     b("?", "help", "?"),
		Accept:   b("enter", "run/keep", "enter"),
		Confirm:  b("y", "yes", "y"),
		Decline:  b("n/esc", "no", "n", "esc"),
	}
}

// apply disables the keys that write to agents (read-only, or no backend
// to write through) and the views that are not wired.
func (k *KeyMap) apply(readOnly, backend, inbox, journal bool) {
	k.Cancel.SetEnabled(!readOnly && backend)
	k.Reply.SetEnabled(!readOnly && inbox)
	k.Inbox.SetEnabled(inbox)
	k.Journal.SetEnabled(journal)
}

// globalHelp is the group every view's full help ends with.
func (k KeyMap) globalHelp() []key.Binding {
	return []key.Binding{k.Tasks, k.Inbox, k.Agents, k.Journal, k.Command, k.Help, k.Quit, k.Force}
}

// bindingHelp is a help.KeyMap made of fixed lists.
type bindingHelp struct {
	short []key.Binding
	full  [][]key.Binding
}

// ShortHelp implements help.KeyMap.
func (h bindingHelp) ShortHelp() []key.Binding { return h.short }

// FullHelp implements help.KeyMap.
func (h bindingHelp) FullHelp() [][]key.Binding { return h.full }

// page scrolls vp for the page keys (pgup, pgdn, g, G) and reports
// whether msg was one of them.
func (k *KeyMap) page(vp *viewport.Model, msg tea.KeyMsg) bool {
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
