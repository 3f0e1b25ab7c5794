package ui

import (
	"fmt"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"a2atop/model"
	"a2atop/ui/internal/uitest"
)

// TestAgentsPushGolden: the agents view's card of an agent with push on
// says how many configs a2atop holds, the last delivery, and the POSTs
// the webhook refused, with why the last was.
func TestAgentsPushGolden(t *testing.T) {
	for _, sz := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			f := fixtureFleet()
			f.Apply([]model.Event{{Kind: model.EventHealth, Agent: "deployer", At: testNow, Health: &model.HealthUpdate{
				State: model.HealthSweeping, Listing: true, LastSuccess: testNow.Add(-2 * time.Second),
				Push: model.PushHealth{On: true, Configs: 3, Delivered: 17, LastDelivery: testNow.Add(-4 * time.Second),
					Rejected: 2, LastRejected: "401: a token a2atop did not issue to this agent (or one retired)"},
			}}})
			m, _ := newTestModel(t, Options{Fleet: f})
			tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(sz[0], sz[1]))
			for _, k := range []string{"3", "j", "j"} {
				tm.Send(uitest.Key(k))
			}
			out := uitest.Frame(t, tm, "push refused", sz[0], sz[1], true)
			golden.RequireEqual(t, []byte(out))
		})
	}
}
