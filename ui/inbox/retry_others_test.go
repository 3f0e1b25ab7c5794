package inbox

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"a2atop/approvals"
	"a2atop/ui/common"
)

// TestSendingAnothersDecisionAgainSaysWhoseItIs: ops@other's approve of
// the deploy was not delivered; here, s in the journal sends it again.
// The confirmation says it is ops@other's decision, sent again as it was
// (it said "already decided … this sends a second decision"), the agent
// gets ops@other's message, and the entry says who sent it again.
func TestSendingAnothersDecisionAgainSaysWhoseItIs(t *testing.T) {
	fx := newFixture(t, false)
	elsewhere := otherProcess(t, fx)
	d, err := elsewhere.Prepare(elsewhere.ItemFor(fx.fleet.Task(deploy)), approvals.Input{Kind: approvals.KindApprove})
	if err != nil {
		t.Fatal(err)
	}
	fx.snd.mu.Lock()
	fx.snd.fail = fmt.Errorf("reply: %w", context.DeadlineExceeded)
	fx.snd.mu.Unlock()
	elsewhere.Send(context.Background(), d)
	fx.snd.mu.Lock()
	fx.snd.fail, fx.snd.sent = nil, nil
	fx.snd.mu.Unlock()
	if out := elsewhere.ReconcileOne(context.Background(), d.MessageID); out.Result != approvals.ResultNotDelivered {
		t.Fatalf("reconciled: %s %v", out.Result, out.Err)
	}
	if _, err := fx.svc.Refresh(); err != nil {
		t.Fatal(err)
	}
	j := NewJournal(fx.ctx, fx.svc, Options{})
	j.SetSize(220, 38)
	var c common.Component = j
	c, _ = sendKeys(c, "s")
	if j.conf == nil {
		t.Fatalf("s opened nothing: %q\n%s", fx.said(), c.View())
	}
	v := c.View()
	if !strings.Contains(v, "Send this approve again?") || strings.Contains(v, "when you confirm") || strings.Contains(v, "second decision") || !strings.Contains(v, "sends again ops@other's approve") ||
		!strings.Contains(v, "the journal records that ops@host sent it again") {
		t.Fatalf("the confirmation does not say whose decision goes again:\n%s", v)
	}
	fx.clk.add(time.Second)
	c, _ = sendKeys(c, "y")
	if len(fx.snd.sent) != 1 || fx.snd.sent[0].ID != d.MessageID {
		t.Fatalf("sent %+v, want ops@other's message again", fx.snd.sent)
	}
	if data, _ := fx.snd.sent[0].Parts[1].Data().(map[string]any); data["approver"] != "ops@other" {
		t.Errorf("the agent got approver %v, want ops@other's message unchanged", data["approver"])
	}
	if v := c.View(); !strings.Contains(v, "again by ops@host") {
		t.Errorf("the journal's entry does not say who sent it again:\n%s", v)
	}
}
