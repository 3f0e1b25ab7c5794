package common

import tea "github.com/charmbracelet/bubbletea"

// Outbox is how a screen asks the root for something within the Update
// that asks: to show a task (OpenTaskMsg), to go back (BackMsg), to open
// the reply editor (ReplyToMsg), to show a notice (StatusMsg) or to apply
// what an agent answered (ApplyMsg). The root takes what was sent after
// every Update it hands a screen, in order, before the next message, so a
// key typed right after enter already reaches the detail that enter
// opened; a tea.Cmd returning the message could not promise that.
//
// The zero value is ready to use. A nil *Outbox drops what is sent (a
// component tested on its own). Like the rest of the UI it is used from
// Bubble Tea's goroutine only: never send to it from a tea.Cmd, return
// the message instead.
type Outbox struct{ msgs []tea.Msg }

// Send leaves msg for the root.
func (o *Outbox) Send(msg tea.Msg) {
	if o != nil {
		o.msgs = append(o.msgs, msg)
	}
}

// Take returns what was sent since the last Take, oldest first.
func (o *Outbox) Take() []tea.Msg {
	if o == nil || len(o.msgs) == 0 {
		return nil
	}
	msgs := o.msgs
	o.msgs = nil
	return msgs
}
