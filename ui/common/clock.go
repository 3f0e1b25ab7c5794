package common

import "time"

// Clock gathers when the picture next changes by the clock alone, so
// that the root's clock wakes then and not every second. Whatever draws
// a text that the passing of time changes (an age, a countdown, a row
// that leaves a pane after a while) tells it the instant that text next
// changes, at the resolution shown: "3m" changes in a minute, "12s" in a
// second. A screen that must hear the clock for another reason (a poll,
// a draft saved as it is typed) asks for it the same way (Within).
//
// The root resets it on each of its ticks, before it tells the screens
// the time and draws again, so what was drawn since the last tick is
// what is asked for. The zero value asks for nothing; a nil *Clock
// formats and discards. It is used by the UI goroutine only.
type Clock struct{ next time.Time }

// At says the picture changes at t; a zero t is never. The clock wakes
// on whole seconds (the first at or after t), as the 1 Hz clock did: the
// rows of a pane whose ages change at as many instants within a second
// wake it once, and none shows its change later than it did.
func (c *Clock) At(t time.Time) {
	if c == nil || t.IsZero() {
		return
	}
	if s := t.Truncate(time.Second); !s.Equal(t) {
		t = s.Add(time.Second)
	}
	if c.next.IsZero() || t.Before(c.next) {
		c.next = t
	}
}

// Within says the screen needs the clock again d after now.
func (c *Clock) Within(now time.Time, d time.Duration) { c.At(now.Add(d)) }

// EverySecond says the screen needs the clock on the next whole second
// after now (a text shown to the second, a poll).
func (c *Clock) EverySecond(now time.Time) { c.At(now.Truncate(time.Second).Add(time.Second)) }

// Next is the earliest instant asked for since the last Reset; zero
// when none was.
func (c *Clock) Next() time.Time {
	if c == nil {
		return time.Time{}
	}
	return c.next
}

// Reset forgets what was asked for.
func (c *Clock) Reset() {
	if c != nil {
		c.next = time.Time{}
	}
}

// Age is Age(now, t), and asks for the instant it changes.
func (c *Clock) Age(now, t time.Time) string {
	c.At(AgeChanges(now, t))
	return Age(now, t)
}

// Left is how long until t, as Age writes it ("in 42s": Age(t, now)),
// and asks for the instant it changes.
func (c *Clock) Left(now, t time.Time) string {
	c.At(LeftChanges(now, t))
	return Age(t, now)
}

// Stamp is Stamp(now, t), and asks for the instant its age changes.
func (c *Clock) Stamp(now, t time.Time) string {
	c.At(AgeChanges(now, t))
	return Stamp(now, t)
}

// ageUnit is the resolution Age writes a duration d ≥ 0 at.
func ageUnit(d time.Duration) time.Duration {
	switch {
	case d < time.Minute:
		return time.Second
	case d < time.Hour:
		return time.Minute
	case d < 48*time.Hour:
		return time.Hour
	}
	return 24 * time.Hour
}

// AgeChanges is the first instant after now at which Age(·, t) writes
// something else than Age(now, t); zero for a zero t (always "-").
func AgeChanges(now, t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	d := now.Sub(t)
	if d < time.Second { // "now", also for a t in the future
		return t.Add(time.Second)
	}
	u := ageUnit(d)
	return t.Add((d/u + 1) * u)
}

// LeftChanges is the first instant after now at which Age(t, ·), a
// countdown to t, writes something else than Age(t, now); zero when it
// no longer changes ("now" once t is less than a second away, and "-"
// for a zero t).
func LeftChanges(now, t time.Time) time.Time {
	d := t.Sub(now)
	if t.IsZero() || d < time.Second {
		return time.Time{}
	}
	u := ageUnit(d)
	return t.Add(-(d/u)*u + 1)
}
