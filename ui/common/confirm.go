package common

import (
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/approvals"
	"a2atop/ui/theme"
)

// Confirm is the answer half of every dialog that writes to an agent
// (the inbox's send, the journal's send again, the cancel of a task):
// the yes key counts only once the dialog is armed, after a quiet period
// with no keypress, so that keys typed ahead (a "y" meant for the view
// behind, a held key) cannot confirm; the no key counts at once.
// Build it with NewConfirm; the zero value is armed at once.
type Confirm struct {
	Yes, No key.Binding
	arming  approvals.Arming
}

// Answer is what a key did to a Confirm.
type Answer uint8

const (
	// Undecided: the dialog stays open.
	Undecided Answer = iota
	// Yes: the dialog was armed and the yes key pressed.
	Yes
	// No: the no key was pressed.
	No
)

// ArmedMsg wakes the view when a confirmation arms, so that its answer
// keys are drawn armed. There is nothing to do on it but draw.
type ArmedMsg struct{ At time.Time }

// NewConfirm opens a confirmation at now that arms after quiet, and the
// Cmd that wakes the view then.
func NewConfirm(yes, no key.Binding, quiet time.Duration, now time.Time) (Confirm, tea.Cmd) {
	c := Confirm{Yes: yes, No: no, arming: approvals.NewArming(quiet, now)}
	return c, c.wake(now)
}

// Key answers a key pressed at now. Any key but yes and no, and a yes
// before the dialog is armed, starts the quiet period again; the Cmd
// then wakes the view when it arms.
func (c *Confirm) Key(msg tea.KeyMsg, now time.Time) (Answer, tea.Cmd) {
	switch {
	case key.Matches(msg, c.No):
		return No, nil
	case key.Matches(msg, c.Yes) && c.arming.Armed(now):
		return Yes, nil
	}
	c.arming.Key(now)
	return Undecided, c.wake(now)
}

// Hint says what the answer keys do at now: "y: send · n/esc: back" once
// armed, and before that that y arms after a quiet moment.
func (c Confirm) Hint(th *theme.Theme, now time.Time, yes, no string) string {
	noKeys := " · " + c.No.Help().Key + ": " + no
	if !c.arming.Armed(now) {
		return th.Muted.Render(c.Yes.Help().Key + " arms after a quiet moment (type-ahead protection)" + noKeys)
	}
	return th.Prompt.Render(c.Yes.Help().Key) + th.Text.Render(": "+yes) + th.Muted.Render(noKeys)
}

func (c Confirm) wake(now time.Time) tea.Cmd {
	d := c.arming.Remaining(now)
	if d <= 0 {
		return nil
	}
	return tea.Tick(d, func(t time.Time) tea.Msg { return ArmedMsg{At: t} })
}
