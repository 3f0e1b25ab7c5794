package a2aclient

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// A REST server that takes :subscribe only as GET (as the proto says)
// answers the SDK's POST with 405: the RoundTripper retries with GET.
func TestRESTSubscribeFallsBackToGET(t *testing.T) {
	var gets atomic.Int32
	a := sdktest.Start(t, sdktest.REST, true, sdktest.GETOnlySubscribe(&gets))
	_, c := runManager(t, []AgentOptions{fast("a", a.URL())}, Options{})
	held := a.Send(t, "hold")
	c.waitFor(t, "streaming over GET", 5*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "a")
		return gets.Load() > 0 && h != nil && h.State == model.HealthStreaming
	})
	a.Exec.Release()
	c.waitFor(t, "completion over the stream", 5*time.Second, func(evs []model.Event) bool {
		for _, e := range evs {
			if e.Kind == model.EventStatus && e.Status.TaskID == held && e.Status.Status.State == a2a.TaskStateCompleted {
				return true
			}
		}
		return false
	})
}
