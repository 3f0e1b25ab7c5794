package ui

import (
	"fmt"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/model"
)

// TestALoneBatchIsNotHeldBack: the dashboard's first batch (an agent came
// up) is followed closely by the next ones (its card, its tasks state by
// state): quickBatches of them show at once, not a batch interval later;
// from there on, batches that follow closely are spaced by the interval. The interval here is an hour, so
// that a wait that is held back cannot pass for one that is not.
func TestALoneBatchIsNotHeldBack(t *testing.T) {
	ch := make(chan model.Event, quickBatches+4)
	m, _ := newTestModel(t, Options{Events: ch, BatchInterval: time.Hour})
	got := make(chan tea.Msg, 1)
	run := func(cmd tea.Cmd) { // applyEvents's Cmd: the wait, or a batch with the wait first
		go func() {
			msg := cmd()
			if b, ok := msg.(tea.BatchMsg); ok {
				msg = b[0]()
			}
			got <- msg
		}()
	}

	ch <- taskEvent("test-runner", "t-1", a2a.TaskStateWorking, 0, "x")
	wait := m.waitEvents(0) // Init's
	for i := 0; i <= quickBatches; i++ {
		msg := wait().(eventsMsg)
		next := m.applyEvents(msg, false)
		ch <- taskEvent("test-runner", a2a.TaskID(fmt.Sprintf("t-%d", i+2)), a2a.TaskStateWorking, 0, "x")
		run(next)
		if i < quickBatches {
			select {
			case msg := <-got:
				wait = func() tea.Msg { return msg }
			case <-time.After(10 * time.Second):
				t.Fatalf("after 10 s: batch %d after the lone one is held back by the batch interval", i+1)
			}
			continue
		}
		select {
		case <-got:
			t.Fatalf("batch %d after the lone one, all following closely, was not spaced by the interval", i+1)
		case <-time.After(100 * time.Millisecond): // an hour, in truth
		}
	}
}
