package tasks

import (
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
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
	ts := testNow.Add(-ago)
	t := &a2a.Task{ID: id, ContextID: "ctx-" + model.ShortID(id), Status: a2a.TaskStatus{State: state, Timestamp: &ts}}
	if text != "" {
		msg := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart(text))
		msg.ID = "msg-" + model.ShortID(id)
		msg.ReferenceTasks = refs
		t.Status.Message = msg
	}
	return model.Event{Kind: model.EventTask, Agent: agent, Source: model.SourceStream, At: ts, Task: t}
}
