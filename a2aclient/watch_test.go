package a2aclient

import (
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// hasArtifactSnapshot reports whether a snapshot of id carrying artifacts
// reached the model.
func hasArtifactSnapshot(evs []model.Event, id a2a.TaskID) bool {
	for _, e := range evs {
		if e.Kind == model.EventTask && e.Task.ID == id && len(e.Task.Artifacts) > 0 &&
			e.Task.Artifacts[0].Name == "summary.json" {
			return true
		}
	}
	return false
}

// Tasks created by another client are found by sweeps on every binding
// that lists; on 0.3 JSON-RPC (no ListTasks) they are found once watched,
// and the health says why. A completed task's artifacts reach the model.
func TestSweepsFindTasksOfAnotherClient(t *testing.T) {
	for _, kind := range []sdktest.Kind{sdktest.JSONRPC, sdktest.REST, sdktest.GRPC, sdktest.Legacy} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			a := sdktest.Start(t, kind, false, nil)
			o := fast("a", a.URL())
			m, c := runManager(t, []AgentOptions{o}, Options{})
			c.waitFor(t, "agent info", 5*time.Second, func(evs []model.Event) bool {
				for _, e := range evs {
					if e.Kind == model.EventAgent {
						return true
					}
				}
				return false
			})
			done := a.Send(t, "done")
			ask := a.Send(t, "ask")
			if kind == sdktest.Legacy {
				c.waitFor(t, "0.3 listing note", 5*time.Second, func(evs []model.Event) bool {
					h := lastHealth(evs, "a")
					return h != nil && h.State == model.HealthPolling && h.ListingNote == "no task listing (A2A 0.3)" && !h.Listing
				})
				m.Watch("a", done)
				m.Watch("a", ask)
			}
			c.waitFor(t, "completed task", 5*time.Second, func(evs []model.Event) bool {
				return hasTask(evs, "a", done, a2a.TaskStateCompleted) && hasTask(evs, "a", ask, a2a.TaskStateInputRequired)
			})
			c.waitFor(t, "summary.json artifact", 5*time.Second, func(evs []model.Event) bool {
				return hasArtifactSnapshot(evs, done)
			})
			if kind != sdktest.Legacy {
				c.waitFor(t, "sweeping health", 5*time.Second, healthIs("a", model.HealthSweeping))
			}
			a.Icpt.Mu.Lock()
			defer a.Icpt.Mu.Unlock()
			for _, v := range a.Icpt.Versions[len(a.Icpt.Versions)-1:] {
				want := "1.0"
				if kind == sdktest.Legacy {
					want = "0.3"
				}
				if v != want {
					t.Errorf("A2A-Version seen by the server = %q, want %q", v, want)
				}
			}
		})
	}
}
