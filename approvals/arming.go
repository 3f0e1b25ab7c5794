package approvals

import "time"

// Arming decides when a confirmation may be accepted: only after Quiet has
// passed with no keypress, so that keys typed ahead (a "y" meant for
// something else, a held key) cannot approve. It is a pure value over
// time: the caller passes the clock in. The zero value is armed at once.
//
//	a := approvals.NewArming(svc.QuietPeriod(), now) // when the dialog opens
//	// on every key: if key is "y" && a.Armed(now) { confirm } else { a.Key(now) }
//	// to redraw when it arms: tea.Tick(a.Remaining(now), ...)
type Arming struct {
	Quiet time.Duration
	last  time.Time
}

// NewArming starts the quiet period at opened (opening counts as a key).
func NewArming(quiet time.Duration, opened time.Time) Arming {
	return Arming{Quiet: quiet, last: opened}
}

// Key restarts the quiet period: any keypress while the dialog is open,
// including a "y" that came too early.
func (a *Arming) Key(now time.Time) { a.last = now }

// Armed reports whether the quiet period has passed since the last key.
func (a Arming) Armed(now time.Time) bool { return a.Remaining(now) == 0 }

// Remaining is how long until the confirmation arms (0 once armed).
func (a Arming) Remaining(now time.Time) time.Duration {
	if a.last.IsZero() {
		return 0
	}
	r := a.Quiet - now.Sub(a.last)
	if r < 0 {
		return 0
	}
	return r
}
