package a2aclient

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// TestSDKServerRefusesSubscribeWithoutExecution documents what
// no_active_execution.go works around: the SDK v2.4.0's server answers a
// subscribe to an INPUT_REQUIRED task it holds, and that GetTask returns,
// with TaskNotFound "no active execution", on every binding. It fails the
// day the SDK's server streams such a task (see no_active_execution.go
// for why the workaround stays a while longer).
func TestSDKServerRefusesSubscribeWithoutExecution(t *testing.T) {
	for _, kind := range []sdktest.Kind{sdktest.JSONRPC, sdktest.REST, sdktest.GRPC} {
		t.Run(string(kind), func(t *testing.T) {
			a := sdktest.Start(t, kind, true, nil)
			ask := a.CreateInStore(t, a2a.TaskStateInputRequired)
			bare := a.Other(t)
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			if got, err := bare.GetTask(ctx, &a2a.GetTaskRequest{ID: ask}); err != nil || got.Status.State != a2a.TaskStateInputRequired {
				t.Fatalf("GetTask = %v, %v", got, err)
			}
			events, err := 0, error(nil)
			for _, err = range bare.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: ask}) {
				if err != nil {
					break
				}
				events++
			}
			if events != 0 || !errors.Is(err, a2a.ErrTaskNotFound) || !strings.Contains(err.Error(), "no active execution") {
				t.Fatalf("bare SDK subscribe: %d events, %v; pinned: none, TaskNotFound \"no active execution\"", events, err)
			}
		})
	}
}

// A Go server answers SubscribeToTask on an INPUT_REQUIRED task with
// -32001 (TaskNotFound) "no active execution", on every binding. GetTask
// then finds the task: that is normal, so the agent's row shows no error,
// the task is not reported gone, and it is left to sweeps.
func TestNoActiveExecutionIsQuiet(t *testing.T) {
	for _, kind := range []sdktest.Kind{sdktest.JSONRPC, sdktest.REST, sdktest.GRPC} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			a := sdktest.Start(t, kind, true, nil)
			// In the store with no execution: what an INPUT_REQUIRED task
			// is once its execution ended, without racing that end.
			ask := a.CreateInStore(t, a2a.TaskStateInputRequired)
			m, c := runManager(t, []AgentOptions{fast("a", a.URL())}, Options{})
			c.waitFor(t, "the INPUT_REQUIRED task", 5*time.Second, func(evs []model.Event) bool {
				return hasTask(evs, "a", ask, a2a.TaskStateInputRequired)
			})
			c.waitFor(t, "SubscribeToTask refused with TaskNotFound", 5*time.Second, func([]model.Event) bool {
				return countRefusals(m.Capture("a")) > 0
			})
			n := len(c.snapshot())
			c.waitFor(t, "two more rounds", 5*time.Second, func(evs []model.Event) bool {
				rounds := 0
				for _, e := range evs[n:] {
					if e.Kind == model.EventHealth && e.Health.State.Up() {
						rounds++
					}
				}
				return rounds >= 2
			})
			for _, e := range c.snapshot() {
				switch {
				case e.Kind == model.EventHealth && e.Health.Err != "":
					t.Errorf("health error %q (%s); a refused subscribe on a task GetTask finds is normal", e.Health.Err, e.Health.State)
				case e.Kind == model.EventGone:
					t.Errorf("task %s reported gone", e.Task.ID)
				}
			}
		})
	}
}

// countRefusals counts SubscribeToTask exchanges a Go server refused with
// "no active execution" (JSON-RPC -32001 and REST NOT_FOUND in an SSE
// frame, gRPC NotFound).
func countRefusals(ex []model.Exchange) int {
	n := 0
	for _, e := range ex {
		if e.RPC == "SubscribeToTask" && strings.Contains(e.Response+e.Err, "no active execution") {
			n++
		}
	}
	return n
}
