package a2aclient

import (
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// The listing note says why an agent cannot list tasks, and only once its
// card told us: an unreachable agent is not "A2A 0.3", and a 1.0 agent
// that answers ListTasks with UnsupportedOperation is not either.
func TestListingNoteNeedsTheCard(t *testing.T) {
	noList := sdktest.Start(t, sdktest.JSONRPC, false, nil)
	noList.Icpt.NoList = true
	id := noList.Send(t, "ask")
	down := sdktest.FreeAddr(t) // nothing listens here
	o := fast("nolist", noList.URL())
	o.Tasks = []a2a.TaskID{id}
	_, c := runManager(t, []AgentOptions{fast("down", "http://"+down), o}, Options{})
	c.waitFor(t, "down agent unreachable", 5*time.Second, healthIs("down", model.HealthUnreachable))
	c.waitFor(t, "1.0 agent without ListTasks polls", 5*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "nolist")
		return h != nil && h.State == model.HealthPolling && !h.Listing &&
			h.ListingNote == noListingUnsupported && hasTask(evs, "nolist", id, a2a.TaskStateInputRequired)
	})
	for _, e := range c.snapshot() {
		if e.Kind == model.EventHealth && e.Agent == "down" && e.Health.ListingNote != "" {
			t.Errorf("unreachable agent has listing note %q; its card was never read", e.Health.ListingNote)
		}
		if e.Kind == model.EventHealth && e.Health.State == model.HealthConnecting && e.Health.ListingNote != "" {
			t.Errorf("%s: connecting health has listing note %q", e.Agent, e.Health.ListingNote)
		}
	}
}
