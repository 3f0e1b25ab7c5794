package a2aclient

import (
	"testing"
	"time"
)

// Backoff doubles from min(1 s, sweep interval) per failure, is capped at
// 60 s, and is jittered over its upper half; sweep intervals are
// jittered by ±10 %.
func TestBackoffAndJitter(t *testing.T) {
	w := &watcher{o: AgentOptions{SweepInterval: 5 * time.Second}}
	for n := 1; n <= 40; n++ {
		w.failures = n
		want := min(time.Second<<min(n-1, 16), maxBackoff)
		seen := map[time.Duration]bool{}
		for range 50 {
			d := w.backoff(false)
			if d < want/2 || d > want || d > maxBackoff {
				t.Fatalf("failure %d: backoff %s outside [%s, %s]", n, d, want/2, want)
			}
			seen[d] = true
		}
		if len(seen) < 2 {
			t.Errorf("failure %d: backoff not jittered (%v)", n, seen)
		}
	}
	w.o.SweepInterval, w.failures = 100*time.Millisecond, 1
	if d := w.backoff(false); d > 100*time.Millisecond {
		t.Errorf("first backoff with a 100ms sweep = %s, want at most the sweep interval", d)
	}
	for range 100 {
		if d := jitter(10 * time.Second); d < 9*time.Second || d > 11*time.Second {
			t.Fatalf("jitter(10s) = %s", d)
		}
	}
}

// While the agent cannot be reached, the wait stops doubling at 4 s (or
// the sweep interval, if shorter), however many attempts failed: an
// agent that restarts is seen answering within that long.
func TestBackoffWhileAway(t *testing.T) {
	for _, sweep := range []time.Duration{5 * time.Second, 100 * time.Millisecond} {
		w := &watcher{o: AgentOptions{SweepInterval: sweep}}
		limit := min(maxAwayWait, sweep)
		for n := 1; n <= 40; n++ {
			w.failures = n
			for range 50 {
				if d := w.backoff(true); d > limit {
					t.Fatalf("sweep %s, failure %d: backoff while away %s, past %s", sweep, n, d, limit)
				}
			}
		}
	}
}
