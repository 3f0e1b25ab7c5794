package ui

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// restClock is the simulated time two dashboards share in the tests
// below: it moves only when the test moves it.
type restClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *restClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *restClock) set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// restModel is the fixture's dashboard with its journal (followed by
// file-change notification that never fires: nothing changes) on the
// simulated clock, its events applied as the watchers' batch, the
// clock's own Cmd left out: the test plays the clock.
func restModel(t *testing.T, clk *restClock, o Options, extra []model.Event, keys ...string) *Model {
	t.Helper()
	o.Fleet, o.Now, o.JournalChanges = model.NewFleet(model.Options{}), clk.Now, make(chan struct{})
	m := withJournal(t, filepath.Join(t.TempDir(), "journal.jsonl"), o)
	m.alarm.waiting = true
	sized(m, 120, 40)
	_, cmd := m.Update(eventsMsg{batch: append(fixtureEvents(), extra...)})
	settle(m, cmd)
	press(m, keys...)
	m.View()
	return m
}

// tickAt hands m the clock's tick at the simulated instant and runs
// what the screens start on it, as the program would.
func tickAt(m *Model, clk *restClock, at time.Time) {
	clk.set(at)
	_, cmd := m.Update(tickMsg{now: at})
	settle(m, cmd)
}

// TestTheClockWakesOnlyWhenThePictureChanges runs a dashboard at rest
// for ten simulated minutes on each screen, its clock waking when it
// asked to, beside one ticked every second as the clock did before: at
// every second both show the same picture (no age, countdown or row
// left stale), and the first wakes far less often where nothing on
// screen changes each second.
func TestTheClockWakesOnlyWhenThePictureChanges(t *testing.T) {
	for _, sc := range []struct {
		name  string
		o     Options
		extra []model.Event
		keys  []string
		most  int // ticks in ten minutes; 0: no bound (what is shown changes each second)
		// changes come to both, each its duration after the start.
		changes map[time.Duration][]model.Event
	}{
		{"tasks", Options{}, nil, nil, 100, nil},
		// Twenty tasks whose ages turn at twenty instants of each second
		// wake the clock once a second, then once for each whole second
		// in which one of their minutes turns.
		{"tasks whose ages turn within the second", Options{}, offBeat(20), nil, 400, nil},
		// The finished tasks leave the pane 3, 5 and 8 minutes on.
		{"tasks hiding what ended", Options{HideTerminalAfter: 7 * time.Minute}, nil, nil, 100, nil},
		// A notice goes 6 s after it came (":theme dark" says it did).
		{"journal with a notice", Options{}, nil, []string{"4", ":", "t", "h", "e", "m", "e", " ", "d", "a", "r", "k", "enter"}, 100, nil},
		{"inbox", Options{}, nil, []string{"2"}, 100, nil},
		{"journal", Options{}, nil, []string{"4"}, 100, nil},
		{"detail of a finished task", Options{}, nil, []string{"tab", "tab", "enter"}, 100, nil},
		{"detail of a running task", Options{}, nil, []string{"enter"}, 0, nil},
		{"agents", Options{}, nil, []string{"3"}, 0, nil},
		{"help", Options{}, nil, []string{"?"}, 100, nil},
		// Sorted by the status text (T), a change 0.4 s after another is
		// shown in the order of the sort the first made (resortEvery),
		// and sorted again a second after that sort.
		{"tasks sorted by text after two changes", Options{}, nil, []string{"T"}, 160, textChanges()},
	} {
		t.Run(strings.ReplaceAll(sc.name, " ", "_"), func(t *testing.T) {
			clk := &restClock{now: testNow}
			lazy, every := restModel(t, clk, sc.o, sc.extra, sc.keys...), restModel(t, clk, sc.o, sc.extra, sc.keys...)
			ticks := 0
			end := testNow.Add(10 * time.Minute)
			for now := testNow; now.Before(end); {
				next := now.Truncate(time.Second).Add(time.Second)
				at, change, changing := nextChange(sc.changes, now, next)
				if changing { // this step ends with the change
					next = at
				}
				for at := lazy.alarm.next(); !at.IsZero() && !at.After(next); at = lazy.alarm.next() {
					if ticks++; ticks > 10_000 {
						t.Fatalf("the clock woke %d times by %s", ticks, at.Format(time.TimeOnly))
					}
					if at.After(now) {
						now = at
					}
					tickAt(lazy, clk, now)
					lazy.View()
				}
				if changing {
					now = next
					for _, m := range []*Model{lazy, every} {
						clk.set(now)
						_, cmd := m.Update(eventsMsg{batch: change})
						settle(m, cmd)
						m.View()
					}
					continue
				}
				now = next
				tickAt(every, clk, now)
				if got, want := lazy.View(), every.View(); got != want {
					t.Fatalf("at %s the picture is stale (ticked %d times):\n%s\nwant, as ticked every second:\n%s",
						now.Format(time.TimeOnly), ticks, got, want)
				}
			}
			t.Logf("%s: the clock woke %d times in 10 simulated minutes at rest", sc.name, ticks)
			if sc.most > 0 && ticks > sc.most {
				t.Errorf("the clock woke %d times in 10 minutes at rest, want at most %d (ages shown in minutes change once a minute)", ticks, sc.most)
			}
		})
	}
}

// TestTheClockWakesEarlierWhenAskedEarlier: the clock's Cmd sleeps until
// the instant asked for, and an earlier instant asked for meanwhile
// wakes it then; a second Cmd is not started while one is out.
func TestTheClockWakesEarlierWhenAskedEarlier(t *testing.T) {
	m, _ := newTestModel(t, Options{Now: time.Now})
	m.alarm.set(time.Now().Add(time.Hour))
	cmd := m.waitClock()
	if m.waitClock() != nil {
		t.Fatal("a second clock Cmd while one is out")
	}
	got := make(chan any, 1)
	go func() { got <- cmd() }()
	m.alarm.set(time.Now().Add(10 * time.Millisecond))
	select {
	case msg := <-got:
		if _, ok := msg.(tickMsg); !ok {
			t.Fatalf("the clock's Cmd returned %T", msg)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the clock asked for 10 ms from now had not woken 30 s later")
	}
	if m.waitClock() == nil {
		t.Fatal("no clock Cmd after the last one returned")
	}
}

// offBeat is n working tasks of the test-runner whose status times fall
// at n different instants of a second, between 1 and 40 s ago.
func offBeat(n int) []model.Event {
	evs := make([]model.Event, 0, n)
	for i := range n {
		ago := time.Duration(i+1)*2*time.Second + time.Duration(i)*37*time.Millisecond
		id := a2a.TaskID(fmt.Sprintf("0ffbea70-0000-4000-8000-%012d", i))
		evs = append(evs, taskEvent("test-runner", id, a2a.TaskStateWorking, ago, "step "+strconv.Itoa(i)))
	}
	return evs
}

// textChanges are two of the fixture's running tasks saying something
// else 0.4 s apart (at 20:04:59.9 and 20:05:00.3), each sorting first
// by text.
func textChanges() map[time.Duration][]model.Event {
	at1, at2 := 5*time.Minute-100*time.Millisecond, 5*time.Minute+300*time.Millisecond
	return map[time.Duration][]model.Event{
		at1: {taskEvent("test-runner", idRunning, a2a.TaskStateWorking, -at1, "b second step")},
		at2: {taskEvent("code-reviewer", idHostile, a2a.TaskStateWorking, -at2, "a first step")},
	}
}

// nextChange is the change due after now and not after next, if any.
func nextChange(changes map[time.Duration][]model.Event, now, next time.Time) (time.Time, []model.Event, bool) {
	for d, evs := range changes {
		if at := testNow.Add(d); at.After(now) && !at.After(next) {
			return at, evs, true
		}
	}
	return time.Time{}, nil, false
}
