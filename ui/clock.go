package ui

import (
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// The root's clock wakes when the picture next changes by the clock
// alone, not every second: each render tells the alarm the earliest
// instant a screen or the root itself asked for (common.Clock), and one
// Cmd at a time (waitClock) sleeps until then, or until a later render
// asks for an earlier instant. At rest with nothing timed on screen it
// sleeps until something is.

// alarm is the instant the clock wakes at, shared by the UI goroutine
// (set, clear) and the Cmd that waits for it. Safe for concurrent use.
type alarm struct {
	mu      sync.Mutex
	at      time.Time     // zero: not until asked
	waiting bool          // a waitClock Cmd is out
	kick    chan struct{} // the wait looks at at again
}

func newAlarm() *alarm { return &alarm{kick: make(chan struct{}, 1)} }

// set makes the clock wake at t, when t is earlier than the instant it
// wakes at (or it wakes at none); a zero t changes nothing.
func (a *alarm) set(t time.Time) {
	if t.IsZero() {
		return
	}
	a.mu.Lock()
	earlier := a.at.IsZero() || t.Before(a.at)
	if earlier {
		a.at = t
	}
	a.mu.Unlock()
	if earlier {
		select {
		case a.kick <- struct{}{}:
		default:
		}
	}
}

// clear forgets the instant: the clock woke, and the renders that follow
// say when it wakes next.
func (a *alarm) clear() {
	a.mu.Lock()
	a.at = time.Time{}
	a.mu.Unlock()
}

// next is the instant the clock wakes at; zero for none.
func (a *alarm) next() time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.at
}

// waitClock is the Cmd that sleeps until the alarm's instant (how long,
// by the dashboard's clock), and then says so with a tickMsg. The root
// starts one at Init and another after each tick; nil while one is out
// (a tick a test sends starts no second one).
func (m *Model) waitClock() tea.Cmd {
	a, now := m.alarm, m.ctx.Now
	a.mu.Lock()
	out := a.waiting
	a.waiting = true
	a.mu.Unlock()
	if out {
		return nil
	}
	return func() tea.Msg {
		defer func() {
			a.mu.Lock()
			a.waiting = false
			a.mu.Unlock()
		}()
		for {
			at := a.next()
			if at.IsZero() {
				<-a.kick
				continue
			}
			d := at.Sub(now())
			if d <= 0 {
				return tickMsg{now: at}
			}
			t := time.NewTimer(d)
			select {
			case <-t.C: // trusted as it is: a test's clock may stand still
				return tickMsg{now: at}
			case <-a.kick: // asked for an earlier instant
				t.Stop()
			}
		}
	}
}

// wakeAt is when the clock wakes for an instant asked for: the instant,
// or the next whole second when it is not after now (a pane that reads
// itself again once a second asked for an instant it has just passed).
func wakeAt(at, now time.Time) time.Time {
	if !at.IsZero() && !at.After(now) {
		return now.Truncate(time.Second).Add(time.Second)
	}
	return at
}

// askClock is what the root asks of the clock itself, after a render:
// the notice's end, and every second what it reads on the clock: the
// journal without file-change notification, and a hub's state, which it
// looks at on every message, unless the hub says when it changes (then
// its journal too comes with the hub's changes: team_wait.go).
func (m *Model) askClock(now time.Time) {
	c := m.ctx.Clock
	if m.status.text != "" {
		c.At(m.status.until)
	}
	if m.ctx.Team != nil && m.teamNotifies() {
		return
	}
	if (m.svc != nil && m.jchanges == nil) || m.ctx.Team != nil {
		c.EverySecond(now)
	}
}
