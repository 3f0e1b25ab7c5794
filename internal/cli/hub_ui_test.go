package cli

import (
	"bytes"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/charmbracelet/x/exp/teatest"

	"a2atop/demo"
	"a2atop/model"
)

// TestHubDashboardsShowClaimsAndWhoDecided drives three dashboards on one
// hub through their Update loops, as a new user would try them: alice and
// a second alice (attached with alice's token) open the approval of the
// same deploy; bob sees on its row that alice is approving, and the
// header of each names the hub and its operator. The first alice
// approves; the second's approval is refused by the hub in words (who
// decided, when, how) and the agent is asked once. The journal view of
// each names who decided in its own column, "alice (you)" for alice.
func TestHubDashboardsShowClaimsAndWhoDecided(t *testing.T) {
	dir := isolate(t)
	t.Setenv("NO_COLOR", "1")
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	url := startHub(t, writeHubConfig(t, dir, agents, 200*time.Millisecond))
	alice, alice2, bob := attachUI(t, url, "alice"), attachUI(t, url, "alice"), attachUI(t, url, "bob")
	waitScreen(t, alice, "alice", "operator alice")
	waitScreen(t, bob, "bob", "operator bob")
	deploy := waitingTask(t, agents, demo.Deployer, "deploy 9f3c2e1 to staging", a2a.TaskStateAuthRequired)
	short := model.ShortID(deploy)
	for _, tm := range []*teatest.TestModel{alice, alice2, bob} {
		tm.Send(key("2"))
		tm.Type("/" + short)
		tm.Send(key("enter"))
		waitScreen(t, tm, "", "· 1 shown")
	}
	alice.Send(key("a"))
	waitScreen(t, alice, "alice", "y: send")
	waitScreen(t, bob, "bob", "[alice is approving] approve deploy of 9f3c2e1 to staging?")
	alice2.Send(key("a"))
	waitScreen(t, alice2, "alice2", "y: send")
	alice.Send(key("y")) // both at once: the hub takes the first, refuses the other
	alice2.Send(key("y"))
	took := 0
	for _, tm := range []*teatest.TestModel{alice, alice2} {
		saw := waitAny(t, tm, "approve → deployer · "+short+": the agent took the message",
			"approve → deployer · "+short+": decided by alice at ", // the hub's 409
			"answered elsewhere by alice")                          // the feed was first: nothing was sent
		t.Logf("saw %d", saw)
		if saw == 0 {
			took++
		}
	}
	if took != 1 {
		t.Fatalf("%d dashboards say the agent took their approval, want 1", took)
	}
	for _, tm := range []*teatest.TestModel{alice2, bob} {
		tm.Send(key("4"))
	}
	waitScreen(t, alice2, "alice2", "alice (you)    approve   deployer · "+short)
	waitScreen(t, bob, "bob", "alice          approve   deployer · "+short)
	if st := taskState(t, agents, demo.Deployer, deploy); st == a2a.TaskStateAuthRequired {
		t.Fatalf("after alice's approval the deploy still waits")
	}
}

// waitAny waits until the dashboard draws one of wants and returns which.
func waitAny(t *testing.T, tm *teatest.TestModel, wants ...string) int {
	t.Helper()
	saw := -1
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		for i, w := range wants {
			if bytes.Contains(b, []byte(w)) {
				saw = i
				return true
			}
		}
		return false
	}, teatest.WithDuration(30*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	return saw
}
