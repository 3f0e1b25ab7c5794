package hub_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/hub"
	"a2atop/model"
)

// TestAnothersDecisionThroughTheHub: alice's approve reaches the agent
// late (its outcome unknown). Dave, on another dashboard attached to the
// same hub over HTTP, is refused a decision of his own with who decided
// what, and nothing to retry; sending alice's decision again (a retry)
// sends her message, and the hub's journal records it as hers, sent
// again by dave. It recorded dave as the retry's approver, and told him
// to "retry it with the same messageId".
func TestAnothersDecisionThroughTheHub(t *testing.T) {
	fx := newFixture(t, func(o *hub.Options) { o.Journal.SendTimeout = 300 * time.Millisecond })
	alice, dave := fx.attach("alice"), fx.attach("dave")
	id := fx.ag.Start("deploy")
	for _, d := range []*dash{alice, dave} {
		d.waitFor("the deploy", func(f *model.Fleet) bool { return d.inInbox(f, id) })
	}
	fx.ag.SetDelay(time.Second)
	dec := alice.prepare(id, approvals.Input{Kind: approvals.KindApprove, Reason: "ship it"})
	if o := alice.svc.Send(context.Background(), dec); o.Result != approvals.ResultUnknown {
		t.Fatalf("the slow send: %s (%v), want unknown", o.Words(), o.Err)
	}
	dave.waitFor("alice's decision on the feed", func(*model.Fleet) bool { _, ok := dave.svc.Entry(dec.MessageID); return ok })
	var err error
	dave.read(func(f *model.Fleet) {
		it, _ := dave.svc.ItemOf(f, model.TaskKey{Agent: "agent", ID: id})
		_, err = dave.svc.Prepare(it, approvals.Input{Kind: approvals.KindApprove, Again: true})
	})
	if !errors.Is(err, approvals.ErrOutcomeOpen) || !strings.Contains(err.Error(), `decided by alice at `) ||
		!strings.Contains(err.Error(), `approved "ship it"`) || strings.Contains(err.Error(), "retry") {
		t.Errorf("dave's approve over alice's open one: %v; want who decided what, and no retry offered", err)
	}
	fx.ag.SetDelay(0)
	fx.ag.WaitState(id, func(s a2a.TaskState) bool { return s == a2a.TaskStateCompleted })
	again, err := dave.svc.Retry(dec.MessageID)
	if err != nil {
		t.Fatal(err)
	}
	if o := dave.svc.Send(context.Background(), again); o.Result != approvals.ResultAccepted {
		t.Fatalf("dave's retry of alice's decision: %s (%v)", o.Words(), o.Err)
	}
	if n := fx.ag.OnTask(id); n != 1 {
		t.Errorf("the agent received %d messages, want alice's once", n)
	}
	f, err := os.Open(fx.journal)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	retries := 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var r struct{ Type, ID, Approver, By string }
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Type == "retry" && r.ID == dec.MessageID {
			retries++
			if r.Approver != "alice" || r.By != "dave" {
				t.Errorf("the hub's journal records the retry as approver %q by %q; want alice's decision, sent again by dave", r.Approver, r.By)
			}
		}
	}
	if retries != 1 {
		t.Errorf("%d retry records in the hub's journal, want 1", retries)
	}
}

// TestTheLoserOfARaceSeesWhatWasSent: bob's reply comes second to
// alice's on one prompt; his refusal says what alice sent, not only
// "decided by alice … replied".
func TestTheLoserOfARaceSeesWhatWasSent(t *testing.T) {
	fx := newFixture(t)
	alice, bob := fx.attach("alice"), fx.attach("bob")
	id := fx.ag.Start("ask")
	for _, d := range []*dash{alice, bob} {
		d.waitFor("the question", func(f *model.Fleet) bool { return d.inInbox(f, id) })
	}
	first := alice.prepare(id, approvals.Input{Kind: approvals.KindReply, Text: "compare against release/1.4"})
	second := bob.prepare(id, approvals.Input{Kind: approvals.KindReply, Text: "main"})
	if o := alice.svc.Send(context.Background(), first); o.Result != approvals.ResultAccepted {
		t.Fatalf("alice's reply: %s (%v)", o.Words(), o.Err)
	}
	o := bob.svc.Send(context.Background(), second)
	if o.Winner == nil || !strings.Contains(o.Words(), `decided by alice at `) || !strings.Contains(o.Words(), `replied "compare against release/1.4"`) {
		t.Fatalf("bob's refusal says %q (%v); want what alice sent", o.Words(), o.Err)
	}
}
