package a2aclient

import (
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// Incremental sweeps over REST reach the SDK's REST server as
// incremental: it reads the statusTimestampAfter the SDK does not send.
func TestRESTSweepsAreIncremental(t *testing.T) {
	a := sdktest.Start(t, sdktest.REST, false, nil)
	o := fast("a", a.URL())
	o.Subscribe = false
	_, c := runManager(t, []AgentOptions{o}, Options{})
	id := a.Send(t, "ask") // gives the sweeps a high-water mark
	c.waitFor(t, "the task swept", 5*time.Second, func(evs []model.Event) bool {
		return hasTask(evs, "a", id, a2a.TaskStateInputRequired)
	})
	c.waitFor(t, "an incremental listing on the server", 5*time.Second, func([]model.Event) bool {
		a.Icpt.Mu.Lock()
		defer a.Icpt.Mu.Unlock()
		for _, full := range a.Icpt.Lists {
			if !full {
				return true
			}
		}
		return false
	})
}
