package inbox

import (
	"github.com/charmbracelet/bubbles/key"

	"a2atop/ui/common"
)

// KeyMap is every key the inbox and journal views answer to. Reply,
// Approve, Deny, Retry and Reconcile write (to agents or the journal):
// they are disabled in read-only mode.
type KeyMap struct {
	Up, Down, Top, Bottom key.Binding
	PageUp, PageDown      key.Binding
	Open                  key.Binding // the task's detail view
	Sort                  key.Binding // oldest first -> by agent -> newest first
	Reply, Approve, Deny  key.Binding
	Send                  key.Binding `keys:"editor"` // editor: to the confirmation
	Switch                key.Binding `keys:"editor"` // editor: text <-> JSON data
	Keep                  key.Binding `keys:"editor"` // editor: close it, keeping the draft for the task
	Discard               key.Binding `keys:"editor"` // editor: close it, throwing the draft away
	External              key.Binding `keys:"editor"` // editor: the field in $VISUAL or $EDITOR
	Continue              key.Binding `keys:"reason"` // deny reason: on to the confirmation
	Confirm, Decline      key.Binding `keys:"dialog"`
	Back                  key.Binding `keys:"layered"` // back to the view before
	Quit                  key.Binding // back, outside dialogs
	Reconcile, Retry      key.Binding // journal view
	FollowUp              key.Binding // journal view: a refused reply to an ended task
	Filter                common.FilterKeys
	Marks                 common.MarkKeys
	Order                 common.SortKeys // < >: the column before or after
	SortBy                SortKeys        // shift+letter: one column
	// Copy puts the selected task's id on the clipboard: Y, as on every
	// screen, never a confirmation's yes.
	Copy key.Binding
	// Results scroll and close the outcomes of an answer for many.
	Results common.ResultKeys `keys:"results"`
}

// DefaultKeyMap returns the inbox and journal keys. People and scripts
// rely on them: change one only with the help and the README.
func DefaultKeyMap() KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Up:        b("↑/k", "up", "up", "k"),
		Down:      b("↓/j", "down", "down", "j"),
		Top:       b("g", "top", "g", "home"),
		Bottom:    b("G", "bottom", "G", "end"),
		PageUp:    b("pgup", "page up", "pgup"),
		PageDown:  b("pgdn", "page down", "pgdown"),
		Open:      b("enter", "detail", "enter"),
		Sort:      b("o", "sort", "o"),
		Reply:     b("r", "reply", "r"),
		Approve:   b("a", "approve", "a"),
		Deny:      b("d", "deny", "d"),
		Send:      b("ctrl+s", "send…", "ctrl+s"),
		Switch:    b("tab", "text/json", "tab"),
		Keep:      b("esc", "keep draft", "esc"),
		Discard:   b("ctrl+x", "discard draft", "ctrl+x"),
		External:  b("ctrl+e", "open in $EDITOR", "ctrl+e"),
		Continue:  b("enter", "continue", "enter"),
		Confirm:   b("y", "yes, send", "y"),
		Decline:   b("n/esc", "no", "n", "esc"),
		Back:      b("esc", "back", "esc"),
		Quit:      b("q", "back", "q"),
		Reconcile: b("R", "reconcile open", "R"),
		Retry:     b("s", "send again…", "s"),
		FollowUp:  b("f", "follow-up task…", "f"),
		Filter:    common.DefaultFilterKeys(),
		Marks:     common.DefaultMarkKeys(),
		Order:     common.DefaultSortKeys(),
		SortBy:    DefaultSortKeys(),
		Copy:      b("Y", "copy id", "Y"),
		Results:   common.DefaultResultKeys(),
	}
}

// keyMap is o's KeyMap (DefaultKeyMap when nil), every key that writes
// disabled when readOnly.
func (o Options) keyMap(readOnly bool) KeyMap {
	keys := DefaultKeyMap()
	if o.KeyMap != nil {
		keys = *o.KeyMap
	}
	keys.readOnly(readOnly)
	return keys
}

// readOnly disables every key that writes.
func (k *KeyMap) readOnly(ro bool) {
	for _, b := range []*key.Binding{&k.Reply, &k.Approve, &k.Deny, &k.Send, &k.Confirm, &k.Reconcile, &k.Retry, &k.FollowUp,
		&k.Marks.Mark, &k.Marks.All, &k.Marks.Clear, &k.Results.Close} {
		b.SetEnabled(!ro)
	}
}

// Actions are every inbox and journal key as [keys] names them:
// "inbox.approve", "inbox.marks_all" (common.Actions).
func (k *KeyMap) Actions() []common.Action { return common.Actions("inbox", k) }
