package approvals

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// approverSent is the "approver" the agent got in the data part of the
// message with this messageId (a real SDK agent's history).
func approverSent(t *testing.T, fx *fixture, task *Decision) string {
	t.Helper()
	got := fx.ag.waitState(task.TaskID, isTerminal)
	for _, m := range got.History {
		if m.ID != task.MessageID {
			continue
		}
		for _, p := range m.Parts {
			if data, ok := p.Data().(map[string]any); ok {
				a, _ := data["approver"].(string)
				return a
			}
		}
	}
	t.Fatalf("the agent's history holds no message %s", task.MessageID)
	return ""
}

// TestRetryingAnothersDecisionRecordsWhoSentWhat: alice's approve was
// not delivered; bob, on another a2atop sharing the journal, sends it
// again. The agent gets alice's message (her name, her time: a retry is
// the same message), and the journal says so: the retry's approver is
// alice, and bob is who sent it again. It recorded bob as the approver.
func TestRetryingAnothersDecisionRecordsWhoSentWhat(t *testing.T) {
	fx := newFixture(t, func(o *Options) { o.Approver, o.SendTimeout = "alice@test", 300e6 })
	mt := fx.start(t, "deploy")
	d := fx.mustPrepare(t, mt, Input{Kind: KindApprove})
	fx.ag.holdBefore.Store(true)
	if out := fx.svc.Send(context.Background(), d); out.Result != ResultUnknown {
		t.Fatalf("held send: %s/%s %v", out.Result, out.Problem, out.Err)
	}
	fx.ag.holdBefore.Store(false)
	if rs := fx.svc.Reconcile(context.Background()); len(rs) != 1 || rs[0].Result != ResultNotDelivered {
		t.Fatalf("reconcile = %+v", rs)
	}
	bob := fx.open(t, "bob@test")
	r, err := bob.Retry(d.MessageID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Approver != "alice@test" || r.SentBy != "bob@test" {
		t.Errorf("the retry is prepared as approver %q sent by %q; want alice's decision sent by bob", r.Approver, r.SentBy)
	}
	if out := bob.Send(context.Background(), r); out.Result != ResultAccepted {
		t.Fatalf("retry: %s/%s %v", out.Result, out.Problem, out.Err)
	}
	if got := approverSent(t, fx, d); got != "alice@test" {
		t.Fatalf("the agent got approver %q, want alice's message unchanged", got)
	}
	var retries int
	for _, rec := range records(t, fx.path) {
		if rec.Type == recRetry {
			retries++
			if rec.Approver != "alice@test" || rec.By != "bob@test" {
				t.Errorf("the retry record says approver %q by %q; want approver alice@test (what was sent), by bob@test (who sent it)", rec.Approver, rec.By)
			}
		}
	}
	if retries != 1 {
		t.Fatalf("%d retry records", retries)
	}
	e, _ := fx.open(t, "carol@test").Entry(d.MessageID)
	if e.Approver != "alice@test" || e.RetriedBy != "bob@test" || e.Attempts != 2 {
		t.Errorf("read back: approver %q, retried by %q, %d attempts", e.Approver, e.RetriedBy, e.Attempts)
	}
}

// TestRefusedOverAnothersDecisionNamesItAndOffersNoRetry: alice's
// approve has no known outcome (it reached the agent; the answer was
// lost). Bob, sharing the journal, is refused, in Prepare and in Send
// (a decision he prepared before), with who decided what and when, and
// nothing to retry: the retry is not his, and his decision is a new one.
// The words said "reconcile it, then retry it with the same messageId".
func TestRefusedOverAnothersDecisionNamesItAndOffersNoRetry(t *testing.T) {
	fx := newFixture(t, func(o *Options) { o.Approver, o.SendTimeout = "alice@test", 300e6 })
	mt := fx.start(t, "ask")
	bob := fx.open(t, "bob@test")
	early, err := bob.Prepare(bob.ItemFor(mt), Input{Kind: KindReply, Text: "release"})
	if err != nil {
		t.Fatal(err)
	}
	d := fx.mustPrepare(t, mt, Input{Kind: KindReply, Text: "main"})
	fx.ag.holdAfter.Store(true)
	if out := fx.svc.Send(context.Background(), d); out.Result != ResultUnknown {
		t.Fatalf("held send: %s/%s %v", out.Result, out.Problem, out.Err)
	}
	fx.ag.holdAfter.Store(false)
	if _, err := bob.Refresh(); err != nil { // the dashboard's tick
		t.Fatal(err)
	}
	_, err = bob.Prepare(bob.ItemFor(mt), Input{Kind: KindReply, Text: "release", Again: true})
	if !errors.Is(err, ErrOutcomeOpen) {
		t.Fatalf("Prepare over alice's open decision: %v", err)
	}
	out := bob.Send(context.Background(), early)
	if out.Result != ResultRefused || out.Winner == nil || out.Winner.Approver != "alice@test" {
		t.Fatalf("Send over alice's open decision: %s/%s %v (winner %+v)", out.Result, out.Problem, out.Err, out.Winner)
	}
	for what, w := range map[string]string{"Prepare": err.Error(), "Send": out.Words() + " — " + out.Next()} {
		if !strings.Contains(w, "decided by alice@test at ") || !strings.Contains(w, `replied "main"`) {
			t.Errorf("%s says %q; want who decided what (alice, replied \"main\")", what, w)
		}
		if strings.Contains(w, "retry") || strings.Contains(w, "same messageId") {
			t.Errorf("%s says %q; it offers a retry of alice's decision", what, w)
		}
	}
	if n := fx.ag.times(early.MessageID); n != 0 {
		t.Fatalf("bob's decision reached the agent %d times", n)
	}
}
