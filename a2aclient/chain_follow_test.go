package a2aclient

import (
	"slices"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// A task on a listing agent that waits on a task of an A2A 0.3 agent
// (which cannot list) gets that task watched there, with nothing
// configured; another 0.3 agent that does not hold it is asked once and
// reports no "gone" for a task it never had.
func TestChainReferenceIsWatchedOnNonListingAgents(t *testing.T) {
	legacy := sdktest.Start(t, sdktest.Legacy, false, nil)
	other := sdktest.Start(t, sdktest.Legacy, false, nil)
	planner := sdktest.Start(t, sdktest.JSONRPC, false, nil)
	leaf := legacy.Send(t, "ask")
	root := planner.Send(t, "ref:"+string(leaf))
	_, c := runManager(t, []AgentOptions{fast("planner", planner.URL()), fast("legacy", legacy.URL()),
		fast("other", other.URL())}, Options{})
	c.waitFor(t, "the referenced 0.3 task is found", 5*time.Second, func(evs []model.Event) bool {
		return hasTask(evs, "planner", root, a2a.TaskStateAuthRequired) && hasTask(evs, "legacy", leaf, a2a.TaskStateInputRequired)
	})
	gets := func() int {
		other.Icpt.Mu.Lock()
		defer other.Icpt.Mu.Unlock()
		return len(other.Icpt.Tenants) // one entry per GetTask
	}
	c.waitFor(t, "the other 0.3 agent was asked", 5*time.Second, func([]model.Event) bool { return gets() > 0 })
	asked := gets()
	time.Sleep(300 * time.Millisecond) // several sweeps of the planner, which re-read the reference
	if n := gets(); n != asked {
		t.Errorf("the agent without the task was asked %d times, want once", n)
	}
	for _, e := range c.snapshot() {
		if e.Kind == model.EventGone {
			t.Errorf("%s reported %s gone", e.Agent, e.Task.ID)
		}
	}
}

func TestTaskRefs(t *testing.T) {
	msg := &a2a.Message{ReferenceTasks: []a2a.TaskID{"r1"}, Metadata: map[string]any{"waitingOn": []any{"m1", 7}}}
	task := &a2a.Task{ID: "t", Status: a2a.TaskStatus{State: a2a.TaskStateAuthRequired, Message: msg},
		History:  []*a2a.Message{{ReferenceTasks: []a2a.TaskID{"h1"}}},
		Metadata: map[string]any{"waitingOn": "t1", "other": "x"}}
	if got, want := taskRefs(task, "waitingOn"), []a2a.TaskID{"r1", "m1", "h1", "t1"}; !slices.Equal(got, want) {
		t.Errorf("taskRefs = %v, want %v", got, want)
	}
	if got := taskRefs(task, ""); !slices.Equal(got, []a2a.TaskID{"r1", "h1"}) {
		t.Errorf("taskRefs without a chain key = %v", got)
	}
	task.Status.State = a2a.TaskStateCompleted
	if got := taskRefs(task, "waitingOn"); got != nil {
		t.Errorf("a terminal task waits on %v", got)
	}
}
