package a2aclient

import (
	"testing"
	"time"
)

// TestIdleWatchersWakeTogether: watchers whose sweeps, started together
// on a tick of the grid, end at different instants within half an
// interval sleep until the same next tick, between half an interval and
// an interval and a half away.
func TestIdleWatchersWakeTogether(t *testing.T) {
	d := 5 * time.Second
	now := time.Now()
	tick := now.Add(sweepWait(now, d))
	for _, took := range []time.Duration{0, time.Millisecond, 700 * time.Millisecond, 2*time.Second + 400*time.Millisecond} {
		done := tick.Add(took)
		wait := sweepWait(done, d)
		if wait < d/2 || wait > d*3/2 {
			t.Errorf("a sweep of %v: waits %v, want between %v and %v", took, wait, d/2, d*3/2)
		}
		if at := done.Add(wait); !at.Equal(tick.Add(d)) {
			t.Errorf("a sweep of %v: wakes %v after the tick it started on, want %v", took, at.Sub(tick), d)
		}
	}
}
