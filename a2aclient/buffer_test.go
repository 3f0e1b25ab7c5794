package a2aclient

import (
	"context"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// A consumer that stops draining never blocks the watcher for long and
// loses nothing: when the buffer fills the watcher coalesces to a resweep,
// and every task reaches the consumer once it drains again.
func TestSlowConsumerCoalescesToResweep(t *testing.T) {
	a := sdktest.Start(t, sdktest.JSONRPC, false, nil)
	o := fast("a", a.URL())
	m := New([]AgentOptions{o}, Options{Buffer: 4, SendWait: time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { m.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	var ids []a2a.TaskID
	for i := 0; i < 30; i++ {
		ids = append(ids, a.Send(t, "ask"))
	}
	// Nobody drains: the channel fills and the watcher must keep running.
	deadline := time.Now().Add(5 * time.Second)
	for !m.watchers["a"].overflow.Load() {
		if time.Now().After(deadline) {
			t.Fatal("the watcher never coalesced (overflow not set)")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// Now drain like the UI and expect every task.
	seen := map[a2a.TaskID]bool{}
	deadline = time.Now().Add(10 * time.Second)
	for len(seen) < len(ids) && time.Now().Before(deadline) {
		select {
		case ev := <-m.Events():
			if ev.Kind == model.EventTask && ev.Task.Status.State == a2a.TaskStateInputRequired {
				seen[ev.Task.ID] = true
			}
		case <-time.After(100 * time.Millisecond):
		}
	}
	for _, id := range ids {
		if !seen[id] {
			t.Errorf("task %s lost after the overflow", id)
		}
	}
}

// MaxStreams caps the open streams; sweeps cover the other tasks.
func TestMaxStreamsCap(t *testing.T) {
	a := sdktest.Start(t, sdktest.REST, true, nil)
	o := fast("a", a.URL())
	o.MaxStreams = 2
	_, c := runManager(t, []AgentOptions{o}, Options{})
	var ids []a2a.TaskID
	for i := 0; i < 4; i++ {
		ids = append(ids, a.Send(t, "hold"))
	}
	c.waitFor(t, "two streams", 5*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "a")
		return h != nil && h.State == model.HealthStreaming && h.Streams == 2
	})
	for _, e := range c.snapshot() {
		if e.Kind == model.EventHealth && e.Health.Streams > 2 {
			t.Fatalf("health reports %d streams, cap is 2", e.Health.Streams)
		}
	}
	a.Exec.Release()
	c.waitFor(t, "all four complete", 10*time.Second, func(evs []model.Event) bool {
		for _, id := range ids {
			if !hasTask(evs, "a", id, a2a.TaskStateCompleted) {
				return false
			}
		}
		return true
	})
}
