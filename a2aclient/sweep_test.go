package a2aclient

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"a2atop/internal/sdktest"
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
	for _, kind := range []sdktest.Kind{sdktest.JSONRPC, sdktest.REST, sdktest.GRPC} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			a := sdktest.Start(t, kind, false, nil)
			o := fast("a", a.URL())
			o.Subscribe = false
			m, c := runManager(t, []AgentOptions{o}, Options{})
			at := time.Now().Add(-time.Minute).Truncate(time.Millisecond).UTC()
			first := a.Send(t, fmt.Sprintf("at:%d", at.UnixNano()))
			c.waitFor(t, "first task", 5*time.Second, func(evs []model.Event) bool {
				return hasTask(evs, "a", first, a2a.TaskStateInputRequired)
			})
			second := a.Send(t, fmt.Sprintf("at:%d", at.UnixNano()))
			c.waitFor(t, "second task", 5*time.Second, func(evs []model.Event) bool {
				return hasTask(evs, "a", second, a2a.TaskStateInputRequired)
			})
			// Let several more incremental sweeps run over the same boundary.
			calls := func() int { a.Icpt.Mu.Lock(); defer a.Icpt.Mu.Unlock(); return len(a.Icpt.Versions) }
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
				if strings.Contains(ex.Request+ex.URL, "statusTimestampAfter") || kind == sdktest.GRPC && ex.RPC == "ListTasks" {
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
	for _, kind := range []sdktest.Kind{sdktest.JSONRPC, sdktest.REST, sdktest.GRPC, sdktest.Legacy} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			a := sdktest.Start(t, kind, true, nil)
			m, c := runManager(t, []AgentOptions{fast("a", a.URL())}, Options{})
			held := a.Send(t, "hold")
			if kind == sdktest.Legacy { // no listing: the task is known from a reply or config
				m.Watch("a", held)
			}
			c.waitFor(t, "streaming", 5*time.Second, healthIs("a", model.HealthStreaming))
			a.Stop()
			c.waitFor(t, "unreachable", 5*time.Second, healthIs("a", model.HealthUnreachable))
			if h := lastHealth(c.snapshot(), "a"); !strings.Contains(h.Err, "unreachable") || h.NextRetry.IsZero() {
				t.Errorf("health while down = %+v, want unreachable words and a next retry", h)
			}
			whileDown := a.CreateInStore(t, a2a.TaskStateWorking)
			a.Start()
			if kind == sdktest.Legacy {
				m.Watch("a", whileDown)
			}
			c.waitFor(t, "task created while down", 10*time.Second, func(evs []model.Event) bool {
				return hasTask(evs, "a", whileDown, a2a.TaskStateWorking)
			})
			c.waitFor(t, "streaming again", 10*time.Second, healthIs("a", model.HealthStreaming))
			a.Exec.Release()
			c.waitFor(t, "held task completes", 10*time.Second, func(evs []model.Event) bool {
				return hasTask(evs, "a", held, a2a.TaskStateCompleted)
			})
		})
	}
}

// Sweeps are incremental between periodic full resyncs; a task without a
// status timestamp (the filter always returns it) is still reported once.
func TestFullResyncAndUntimedTasks(t *testing.T) {
	a := sdktest.Start(t, sdktest.JSONRPC, false, nil)
	ctx, cc := a2asrv.NewCallContext(t.Context(), nil)
	cc.User = a2asrv.NewAuthenticatedUser("tester", nil)
	untimed := &a2a.Task{ID: a2a.NewTaskID(), ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}
	if _, err := a.Store.Create(ctx, untimed); err != nil {
		t.Fatal(err)
	}
	o := fast("a", a.URL())
	o.Subscribe = false
	o.FullResync = 200 * time.Millisecond
	_, c := runManager(t, []AgentOptions{o}, Options{})
	a.Send(t, "ask") // gives the sweeps a high-water mark
	lists := func() (full, inc int) {
		a.Icpt.Mu.Lock()
		defer a.Icpt.Mu.Unlock()
		for _, f := range a.Icpt.Lists {
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
	a := sdktest.Start(t, sdktest.Legacy, false, nil)
	_, c := runManager(t, []AgentOptions{fast("a", a.URL())}, Options{})
	c.waitFor(t, "polling", 5*time.Second, healthIs("a", model.HealthPolling))
	a.Stop()
	c.waitFor(t, "unreachable", 5*time.Second, healthIs("a", model.HealthUnreachable))
	a.Start()
	c.waitFor(t, "polling again", 10*time.Second, healthIs("a", model.HealthPolling))
}
