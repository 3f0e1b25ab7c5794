package inbox

import (
	"a2atop/ui/internal/uitest"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
	"a2atop/ui/common"
)

// lineOf is the index of the first line of v holding s, or -1.
func lineOf(v, s string) int {
	for i, l := range strings.Split(v, "\n") {
		if strings.Contains(l, s) {
			return i
		}
	}
	return -1
}

// lineAfter is the index of the first line of v after line from holding
// s, or -1.
func lineAfter(v, s string, from int) int {
	for i, l := range strings.Split(v, "\n") {
		if i > from && strings.Contains(l, s) {
			return i
		}
	}
	return -1
}

// TestConfirmShowsTheQuestionAboveThePayload: the question being decided
// stays on screen above what will be sent, at every size, with the task
// named and the answer keys. At 120x40 the approve box covered the
// question; at 60x20 it showed ids and the payload only.
func TestConfirmShowsTheQuestionAboveThePayload(t *testing.T) {
	for _, sz := range [][2]int{{60, 18}, {80, 22}, {120, 38}, {200, 48}} {
		for _, tc := range []struct {
			name     string
			keys     []string
			text     string
			question string
			payload  string
		}{
			{"approve", []string{"j", "a"}, "", "approve deploy of 9f3c2e1 to staging?", `"decision": "approve"`},
			{"deny", []string{"j", "d"}, "not today", "approve deploy of 9f3c2e1 to staging?", `"decision": "deny"`},
			{"reply", []string{"j", "j", "r"}, "main", "Which branch should I compare against?", "main"},
		} {
			fx := newFixture(t, false)
			m := newInbox(t, fx)
			m.SetSize(sz[0], sz[1])
			var c common.Component = m
			c, _ = sendKeys(c, tc.keys...)
			if tc.text != "" {
				c = typeText(c, tc.text)
				if tc.name == "deny" {
					c, _ = sendKeys(c, "enter")
				} else {
					c, _ = sendKeys(c, "ctrl+s")
				}
			}
			if m.mode != modeConfirm {
				t.Fatalf("%s at %v: no confirmation:\n%s", tc.name, sz, c.View())
			}
			v := c.View()
			uitest.CheckFrame(t, v, sz[0], sz[1], false)
			name := lineOf(v, "to "+keyName(m.conf.key))
			q, p, keys := lineAfter(v, tc.question, name), lineAfter(v, tc.payload, name), lineOf(v, "y arms after a quiet moment")
			if q < 0 || keys < 0 || name < 0 || name > q || (p >= 0 && p < q) || !strings.Contains(v, "╚") {
				t.Errorf("%s at %dx%d: task line %d, question line %d, payload line %d, keys line %d:\n%s",
					tc.name, sz[0], sz[1], name, q, p, keys, v)
			}
		}
	}
}

// TestDecisionOnAChainRootGoesToItsLeaf: d, a or r on a chain's root acts
// on the task at the end of its chain, the one that asks, and every step
// says which task will receive it. d on the root used to answer
// "planner · 5b1e0c7a waits on deployer · 23cf3710: answer that one".
func TestDecisionOnAChainRootGoesToItsLeaf(t *testing.T) {
	for _, tc := range []struct {
		key, text, done string
	}{{"d", "not today", "enter"}, {"a", "", ""}, {"r", "go ahead", "ctrl+s"}} {
		fx := newFixture(t, false)
		m := newInbox(t, fx)
		var c common.Component = m
		if it := m.selected(); it == nil || it.Key().ID != idPlan || it.Actionable {
			t.Fatalf("the first row is %v, want the planner (the chain's root)", it)
		}
		c, _ = sendKeys(c, tc.key)
		if tc.key != "a" {
			v := c.View()
			if m.mode == modeList || !strings.Contains(v, "deployer · 23cf3710") || !strings.Contains(v, "end of planner · 5b1e0c7a's chain") {
				t.Fatalf("%s on the root: mode %d, said %q:\n%s", tc.key, m.mode, fx.said(), v)
			}
			c = typeText(c, tc.text)
			c, _ = sendKeys(c, tc.done)
		}
		v := c.View()
		if m.mode != modeConfirm || m.conf.key.ID != idDeploy || !strings.Contains(v, "to deployer · 23cf3710") ||
			!strings.Contains(v, "end of planner · 5b1e0c7a's chain") {
			t.Fatalf("%s on the root: mode %d, confirming %v:\n%s", tc.key, m.mode, m.conf, v)
		}
		fx.clk.add(2 * m.svc.QuietPeriod())
		c, _ = sendKeys(c, "y")
		if len(fx.snd.sent) != 1 || fx.snd.sent[0].TaskID != idDeploy {
			t.Fatalf("%s on the root sent %d messages: %v", tc.key, len(fx.snd.sent), fx.snd.sent)
		}
		if m.selected() == nil || m.selected().Key().ID != idPlan {
			t.Errorf("%s: after the send the cursor left the root it was on", tc.key)
		}
		// The chain ends with the leaf's answer: the root leaving too is
		// what the send did, not news over the send's outcome.
		fx.said()
		at := t0.Add(1)
		var evs []model.Event
		for _, id := range []a2a.TaskID{idDeploy, idPlan} {
			agent := map[a2a.TaskID]string{idDeploy: "deployer", idPlan: "planner"}[id]
			evs = append(evs, model.Event{Kind: model.EventStatus, Agent: agent, At: at, Status: &a2a.TaskStatusUpdateEvent{
				TaskID: id, Status: a2a.TaskStatus{State: a2a.TaskStateFailed, Timestamp: &at}}})
		}
		res := fx.fleet.Apply(evs)
		c.Update(common.FleetChangedMsg{Result: res, Version: fx.fleet.Version()})
		if said := fx.said(); strings.Contains(said, "left the inbox") {
			t.Errorf("%s: the root leaving after the send said %q", tc.key, said)
		}
	}
}
