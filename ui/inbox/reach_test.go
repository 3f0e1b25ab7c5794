package inbox

import (
	"strings"
	"testing"

	"a2atop/model"
	"a2atop/ui/common"
)

// TestAConfirmationWarnsOfAnUnreachableAgent: the deployer's watcher
// cannot reach it; a on its task (and one answer for many) warns in the
// confirmation, with the watcher's words, that the approve is recorded
// and checked first, and not sent while the agent cannot be reached. It
// opened with no warning. A reachable agent's confirmation says nothing
// of it.
func TestAConfirmationWarnsOfAnUnreachableAgent(t *testing.T) {
	fx := newFixture(t, false)
	fx.fleet.Apply([]model.Event{{Kind: model.EventHealth, Agent: "deployer", At: t0,
		Health: &model.HealthUpdate{State: model.HealthUnreachable, Err: "connection refused"}}})
	m := newInbox(t, fx)
	var c common.Component = m
	want := "deployer cannot be reached now (connection refused): y records the approve and asks the agent first"
	c, _ = sendKeys(c, "j", "a") // the deploy
	if v := c.View(); m.mode != modeConfirm || !strings.Contains(v, want) {
		t.Fatalf("a on an unreachable agent's task, mode %d:\n%s", m.mode, v)
	}
	c, _ = sendKeys(c, "esc", "j", "space", "G", "space", "a") // the deploy and the other deploy, marked
	if v := c.View(); m.mode != modeBatch || !strings.Contains(v, want) {
		t.Fatalf("one answer for two tasks of the unreachable agent, mode %d:\n%s", m.mode, v)
	}
	fx2 := newFixture(t, false)
	m2 := newInbox(t, fx2)
	c2, _ := sendKeys(m2, "j", "a")
	if v := c2.View(); m2.mode != modeConfirm || strings.Contains(v, "cannot be reached") {
		t.Fatalf("a reachable agent's confirmation:\n%s", v)
	}
}
