package common

import (
	"testing"
	"time"
)

// TestAgeChangesWhenItsTextDoes: the instant AgeChanges and LeftChanges
// name is the first at which the text differs, at every resolution; an
// instant before it still writes the same.
func TestAgeChangesWhenItsTextDoes(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	for _, d := range []time.Duration{-time.Minute, 0, 300 * time.Millisecond, time.Second, 42*time.Second + 5, time.Minute,
		5*time.Minute + 30*time.Second, time.Hour, 3*time.Hour + time.Minute, 47 * time.Hour, 72*time.Hour + 5} {
		now := t0.Add(d)
		at := AgeChanges(now, t0)
		if !at.After(now) {
			t.Fatalf("age %v: changes at %v, not after now", d, at.Sub(t0))
		}
		if Age(at.Add(-1), t0) != Age(now, t0) || Age(at, t0) == Age(now, t0) {
			t.Errorf("age %v (%q): said to change at %v, but %q just before and %q then", d, Age(now, t0), at.Sub(t0), Age(at.Add(-1), t0), Age(at, t0))
		}
		// The same durations as a countdown to t0+d+d.
		due := now.Add(d)
		if left := LeftChanges(now, due); !left.IsZero() {
			if Age(due, left.Add(-1)) != Age(due, now) || Age(due, left) == Age(due, now) {
				t.Errorf("countdown %v (%q): said to change at %v, but %q just before and %q then", d, Age(due, now), due.Sub(left), Age(due, left.Add(-1)), Age(due, left))
			}
		} else if d >= time.Second {
			t.Errorf("countdown %v: said never to change", d)
		}
	}
	if !AgeChanges(t0, time.Time{}).IsZero() {
		t.Error("a zero time is always -")
	}
	var c *Clock
	c.At(t0) // a nil Clock discards
	if c.Next() != (time.Time{}) {
		t.Error("a nil Clock asked for something")
	}
	c = &Clock{}
	c.At(t0.Add(time.Minute))
	c.At(t0.Add(time.Second))
	c.At(t0.Add(time.Hour))
	if c.Next() != t0.Add(time.Second) {
		t.Errorf("the Clock keeps %v, want the earliest", c.Next())
	}
}
