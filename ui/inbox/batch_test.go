package inbox

import (
	"strings"
	"testing"
	"time"

	"a2atop/approvals"
	"a2atop/model"
	"a2atop/ui/common"
	"a2atop/ui/internal/uitest"

	tea "github.com/charmbracelet/bubbletea"
)

// drive hands c a key and feeds back what its Cmds answer (the sends).
func drive(c common.Component, keys ...string) common.Component {
	for _, k := range keys {
		var cmd tea.Cmd
		c, cmd = c.Update(uitest.Key(k))
		for _, msg := range uitest.Run(cmd) {
			c, _ = c.Update(msg)
		}
	}
	return c
}

// TestBatchDenyOneReasonForAll: d on marked tasks asks one reason,
// applies it to every task, and journals one decision per task.
func TestBatchDenyOneReasonForAll(t *testing.T) {
	fx := newFixture(t, false)
	m := NewInbox(fx.ctx, fx.svc, Options{Sort: model.SortAge})
	m.SetSize(120, 40)
	var c common.Component = m
	c = drive(c, "*", "d")
	if m.mode != modeReason {
		t.Fatalf("d on marked tasks opened mode %d, want the reason", m.mode)
	}
	c = typeText(c, "freeze until monday")
	c = drive(c, "enter")
	if m.mode != modeBatch {
		t.Fatalf("enter after the reason opened mode %d, want the confirmation (%s)", m.mode, fx.said())
	}
	view := m.View()
	for _, want := range []string{"Deny these 2 requests?", "freeze until monday", "skipped (2)"} {
		if !strings.Contains(view, want) {
			t.Errorf("the confirmation does not show %q:\n%s", want, view)
		}
	}
	fx.clk.add(time.Second)
	drive(c, "y")
	if len(fx.snd.sent) != 2 {
		t.Fatalf("one y sent %d messages, want 2", len(fx.snd.sent))
	}
	for _, msg := range fx.snd.sent {
		if !strings.Contains(partsLine(msg.Parts), "freeze until monday") {
			t.Errorf("a denial went without the reason: %s", partsLine(msg.Parts))
		}
	}
	decisions := 0
	for _, e := range fx.svc.Journal() {
		if e.Kind == approvals.KindDeny {
			decisions++
			if e.Reason != "freeze until monday" {
				t.Errorf("journaled reason %q", e.Reason)
			}
		}
	}
	if decisions != 2 {
		t.Fatalf("%d deny decisions in the journal, want one per task (2)", decisions)
	}
}

// TestBatchRefusedIsShownAsRefused: an approval that the check refuses
// (the agent no longer knows the task) is shown as refused on its own
// row while the other is shown as sent, and the footer says a task
// failed.
func TestBatchRefusedIsShownAsRefused(t *testing.T) {
	fx := newFixture(t, false)
	delete(fx.snd.tasks, idOther) // GetTask before the send: not found
	m := NewInbox(fx.ctx, fx.svc, Options{Sort: model.SortAge})
	m.SetSize(120, 40)
	var c common.Component = m
	c = drive(c, "*", "a")
	fx.clk.add(time.Second)
	drive(c, "y")
	if m.mode != modeResults {
		t.Fatalf("mode %d after y, want the outcomes", m.mode)
	}
	if got := m.results.Outcome(model.TaskKey{Agent: "deployer", ID: idOther}); got != common.Refused {
		t.Fatalf("the approval of the unknown task is %d, want refused", got)
	}
	if got := m.results.Outcome(model.TaskKey{Agent: "deployer", ID: idDeploy}); got != common.Sent {
		t.Fatalf("the approval of the waiting task is %d, want sent", got)
	}
	view := m.View()
	if !strings.Contains(view, "refused") || !strings.Contains(view, "1 sent") {
		t.Fatalf("the outcomes do not say which was refused:\n%s", view)
	}
	var done common.StatusMsg
	for _, msg := range fx.out.Take() {
		if s, ok := msg.(common.StatusMsg); ok {
			done = s
		}
	}
	if !done.Err || !strings.Contains(done.Text, "1 refused") {
		t.Fatalf("the footer's last notice %+v hides the refusal", done)
	}
}

// TestDecideForMarksAndAsks: tasks marked on the tasks screen arrive as
// a DecideMsg and open one confirmation for all of them.
func TestDecideForMarksAndAsks(t *testing.T) {
	fx := newFixture(t, false)
	m := NewInbox(fx.ctx, fx.svc, Options{Sort: model.SortAge})
	m.SetSize(120, 40)
	keys := []model.TaskKey{{Agent: "deployer", ID: idDeploy}, {Agent: "deployer", ID: idOther}}
	m.Update(common.DecideMsg{Kind: approvals.KindApprove, Keys: keys})
	if m.mode != modeBatch || len(m.plan.plans) != 2 {
		t.Fatalf("mode %d with %v, want the confirmation of 2", m.mode, m.plan)
	}
}

// TestDecideForTasksThatDoNotWait: marked tasks none of which waits for
// a person (marked on the tasks screen, running or ended) are refused
// with why, every answer; some waiting and some not, the confirmation
// lists those it skips and why.
func TestDecideForTasksThatDoNotWait(t *testing.T) {
	gone := []model.TaskKey{{Agent: "deployer", ID: "not-waiting-1"}, {Agent: "planner", ID: "not-waiting-2"}}
	for _, kind := range []approvals.Kind{approvals.KindApprove, approvals.KindDeny, approvals.KindReply} {
		fx := newFixture(t, false)
		m := NewInbox(fx.ctx, fx.svc, Options{Sort: model.SortAge})
		m.SetSize(120, 40)
		m.Update(common.DecideMsg{Kind: kind, Keys: gone})
		var warn common.StatusMsg
		for _, msg := range fx.out.Take() {
			if s, ok := msg.(common.StatusMsg); ok {
				warn = s
			}
		}
		if m.mode != modeList || !warn.Err || !strings.Contains(warn.Text, "none of the 2 marked tasks waits for a person") {
			t.Errorf("%s of 2 tasks that do not wait: mode %d, footer %+v", kind, m.mode, warn)
		}
	}
	fx := newFixture(t, false)
	m := NewInbox(fx.ctx, fx.svc, Options{Sort: model.SortAge})
	m.SetSize(120, 40)
	m.Update(common.DecideMsg{Kind: approvals.KindApprove, Keys: append([]model.TaskKey{{Agent: "deployer", ID: idDeploy}}, gone...)})
	if m.mode != modeBatch || len(m.plan.plans) != 1 || len(m.plan.skipped) != 2 {
		t.Fatalf("mode %d with %+v, want the confirmation of 1 skipping 2", m.mode, m.plan)
	}
	if v := m.View(); !strings.Contains(v, "does not wait for a person") {
		t.Fatalf("the confirmation does not say why it skips two:\n%s", v)
	}
}

// TestDecideForOneTaskThatDoesNotWait: one task marked elsewhere that
// does not wait is refused by name; the answer does not fall on the row
// under the cursor.
func TestDecideForOneTaskThatDoesNotWait(t *testing.T) {
	fx := newFixture(t, false)
	m := NewInbox(fx.ctx, fx.svc, Options{Sort: model.SortAge})
	m.SetSize(120, 40)
	m.Update(common.DecideMsg{Kind: approvals.KindApprove, Keys: []model.TaskKey{{Agent: "deployer", ID: "not-waiting-1"}}})
	if m.mode != modeList || m.conf != nil {
		t.Fatalf("an approval of a task that does not wait opened mode %d on %v", m.mode, m.target)
	}
}
