package a2aclient

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"a2atop/model"
)

func countSnapshots(evs []model.Event, id a2a.TaskID, src model.Source, st a2a.TaskState) int {
	n := 0
	for _, e := range evs {
		if e.Kind == model.EventTask && e.Task.ID == id && e.Source == src && e.Task.Status.State == st {
			n++
		}
	}
	return n
}

// Two tasks share one status timestamp; the second appears after the
// first sweep moved the high-water mark to that timestamp. The inclusive
// statusTimestampAfter returns both again; each is reported exactly once.
func TestSharedTimestampAcrossSweepBoundary(t *testing.T) {
	for _, kind := range []agentKind{kindJSONRPC, kindREST, kindGRPC} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			a := startAgent(t, kind, false, nil)
			o := fast("a", a.url())
			o.Subscribe = false
			m, c := runManager(t, []AgentOptions{o}, Options{})
			at := time.Now().Add(-time.Minute).Truncate(time.Millisecond).UTC()
			first := a.send(t, fmt.Sprintf("at:%d", at.UnixNano()))
			c.waitFor(t, "first task", 5*time.Second, func(evs []model.Event) bool {
				return hasTask(evs, "a", first, a2a.TaskStateInputRequired)
			})
			second := a.send(t, fmt.Sprintf("at:%d", at.UnixNano()))
			c.waitFor(t, "second task", 5*time.Second, func(evs []model.Event) bool {
				return hasTask(evs, "a", second, a2a.TaskStateInputRequired)
			})
			// Let several more incremental sweeps run over the same boundary.
			calls := func() int { a.icpt.mu.Lock(); defer a.icpt.mu.Unlock(); return len(a.icpt.versions) }
			n := calls()
			c.waitFor(t, "more sweeps", 5*time.Second, func([]model.Event) bool { return calls() >= n+6 })
			evs := c.snapshot()
			// (A sweep may also have caught a task in SUBMITTED, with the
			// same timestamp: a different state is news, not a repeat.)
			for _, id := range []a2a.TaskID{first, second} {
				if got := countSnapshots(evs, id, model.SourceSweep, a2a.TaskStateInputRequired); got != 1 {
					t.Errorf("task %s reported %d times by sweeps as input-required, want exactly 1", id, got)
				}
			}
			// The sweeps really were incremental, with the precise mark.
			var incremental bool
			for _, ex := range m.Capture("a") {
				if strings.Contains(ex.Request+ex.URL, "statusTimestampAfter") || kind == kindGRPC && ex.RPC == "ListTasks" {
					incremental = true
				}
			}
			if !incremental {
				t.Errorf("no incremental ListTasks in the capture")
			}
		})
	}
}

// An agent that is killed and restarted on the same port is reconnected;
// tasks created while it was down appear on the next sweep (on 0.3, once
// watched), and a stream cut by the outage is reopened.
func TestAgentRestartIsReconnected(t *testing.T) {
	for _, kind := range []agentKind{kindJSONRPC, kindREST, kindGRPC, kindLegacy} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			a := startAgent(t, kind, true, nil)
			m, c := runManager(t, []AgentOptions{fast("a", a.url())}, Options{})
			held := a.send(t, "hold")
			if kind == kindLegacy { // no listing: the task is known from a reply or config
				m.Watch("a", held)
			}
			c.waitFor(t, "streaming", 5*time.Second, healthIs("a", model.HealthStreaming))
			a.stop()
			c.waitFor(t, "unreachable", 5*time.Second, healthIs("a", model.HealthUnreachable))
			if h := lastHealth(c.snapshot(), "a"); !strings.Contains(h.Err, "unreachable") || h.NextRetry.IsZero() {
				t.Errorf("health while down = %+v, want unreachable words and a next retry", h)
			}
			whileDown := a.createInStore(t, a2a.TaskStateWorking)
			a.start()
			if kind == kindLegacy {
				m.Watch("a", whileDown)
			}
			c.waitFor(t, "task created while down", 10*time.Second, func(evs []model.Event) bool {
				return hasTask(evs, "a", whileDown, a2a.TaskStateWorking)
			})
			c.waitFor(t, "streaming again", 10*time.Second, healthIs("a", model.HealthStreaming))
			a.exec.release()
			c.waitFor(t, "held task completes", 10*time.Second, func(evs []model.Event) bool {
				return hasTask(evs, "a", held, a2a.TaskStateCompleted)
			})
		})
	}
}

// Sweeps are incremental between periodic full resyncs; a task without a
// status timestamp (the filter always returns it) is still reported once.
func TestFullResyncAndUntimedTasks(t *testing.T) {
	a := startAgent(t, kindJSONRPC, false, nil)
	ctx, cc := a2asrv.NewCallContext(t.Context(), nil)
	cc.User = a2asrv.NewAuthenticatedUser("tester", nil)
	untimed := &a2a.Task{ID: a2a.NewTaskID(), ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}
	if _, err := a.store.Create(ctx, untimed); err != nil {
		t.Fatal(err)
	}
	o := fast("a", a.url())
	o.Subscribe = false
	o.FullResync = 200 * time.Millisecond
	_, c := runManager(t, []AgentOptions{o}, Options{})
	a.send(t, "ask") // gives the sweeps a high-water mark
	lists := func() (full, inc int) {
		a.icpt.mu.Lock()
		defer a.icpt.mu.Unlock()
		for _, f := range a.icpt.lists {
			if f {
				full++
			} else {
				inc++
			}
		}
		return
	}
	c.waitFor(t, "full resyncs between incremental sweeps", 5*time.Second, func([]model.Event) bool {
		full, inc := lists()
		return full >= 3 && inc >= 6
	})
	if n := countSnapshots(c.snapshot(), untimed.ID, model.SourceSweep, a2a.TaskStateWorking); n != 1 {
		t.Errorf("untimed task reported %d times, want 1", n)
	}
}

// An agent that cannot list and has nothing to poll on (A2A 0.3 JSON-RPC,
// no task known yet) is still seen going down and coming back: the
// watcher fetches its card when there is no task to ask about.
func TestIdlePollingAgentOutageIsSeen(t *testing.T) {
	a := startAgent(t, kindLegacy, false, nil)
	_, c := runManager(t, []AgentOptions{fast("a", a.url())}, Options{})
	c.waitFor(t, "polling", 5*time.Second, healthIs("a", model.HealthPolling))
	a.stop()
	c.waitFor(t, "unreachable", 5*time.Second, healthIs("a", model.HealthUnreachable))
	a.start()
	c.waitFor(t, "polling again", 10*time.Second, healthIs("a", model.HealthPolling))
}
