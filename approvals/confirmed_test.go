package approvals

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestTheDecisionTimeIsTheConfirmation: a decision prepared when its
// dialog opened and confirmed ten seconds later carries the
// confirmation's time, in the journal and in the "at" the agent gets
// (a real SDK agent); the messageId and the rest are the prepared ones.
func TestTheDecisionTimeIsTheConfirmation(t *testing.T) {
	opened := time.Date(2026, 12, 1, 17, 59, 14, 380e6, time.UTC)
	var now atomic.Pointer[time.Time]
	now.Store(&opened)
	fx := newFixture(t, func(o *Options) { o.Now = func() time.Time { return *now.Load() } })
	mt := fx.start(t, "deploy")
	d := fx.mustPrepare(t, mt, Input{Kind: KindApprove})
	confirmed := opened.Add(10 * time.Second)
	now.Store(&confirmed)
	c, err := fx.svc.Confirmed(d)
	if err != nil {
		t.Fatal(err)
	}
	if c.MessageID != d.MessageID || c.Approver != d.Approver || !d.At.Equal(opened) {
		t.Fatalf("Confirmed changed more than the time (or changed d): %+v", c)
	}
	if out := fx.svc.Send(context.Background(), c); out.Result != ResultAccepted {
		t.Fatalf("send: %s/%s %v", out.Result, out.Problem, out.Err)
	}
	for _, r := range records(t, fx.path) {
		if r.Type == recDecision && !r.At.Equal(confirmed) {
			t.Errorf("the journal records the decision at %s, want the confirmation's %s", r.At, confirmed)
		}
	}
	task := fx.ag.waitState(mt.Key.ID, isTerminal)
	at := ""
	for _, m := range task.History {
		if m.ID != d.MessageID {
			continue
		}
		for _, p := range m.Parts {
			if data, ok := p.Data().(map[string]any); ok {
				at, _ = data["at"].(string)
			}
		}
	}
	if want := confirmed.Format(time.RFC3339); at != want {
		t.Errorf("the agent got at %q, want the confirmation's %q", at, want)
	}
}
