package tasks

import (
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
	"a2atop/ui/internal/uitest"
)

// The test fixture's pieces the sort's tests use, as ui's fixture has
// them.

// testNow is the fixed clock of the tests (ui's fixture's).
var testNow = time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)

// clock is a settable clock, as ui's tests have.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: testNow} }

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) add(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// taskEvent is a task of agent in state, updated ago before testNow,
// with text (naming refs) as its status message.
func taskEvent(agent string, id a2a.TaskID, state a2a.TaskState, ago time.Duration, text string, refs ...a2a.TaskID) model.Event {
	return uitest.TaskEvent(testNow, agent, id, state, ago, text, refs...)
}
