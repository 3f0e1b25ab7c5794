package hub_test

import (
	"context"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/model"
)

// TestTheHubSendsTheConfirmationsTime: a dashboard's decision confirmed
// a while after its dialog opened goes through the hub (over HTTP) with
// the confirmation's time: the hub builds the same message from it, and
// its journal and the agent both hold that time.
func TestTheHubSendsTheConfirmationsTime(t *testing.T) {
	fx := newFixture(t)
	alice := fx.attach("alice")
	id := fx.ag.Start("deploy")
	alice.waitFor("the deploy", func(f *model.Fleet) bool { return alice.inInbox(f, id) })
	dec := alice.prepare(id, approvals.Input{Kind: approvals.KindApprove})
	time.Sleep(1100 * time.Millisecond) // the "at" sent is to the second
	c, err := alice.svc.Confirmed(dec)
	if err != nil {
		t.Fatal(err)
	}
	if o := alice.svc.Send(context.Background(), c); o.Result != approvals.ResultAccepted {
		t.Fatalf("the confirmed approve: %s (%v)", o.Words(), o.Err)
	}
	e, ok := fx.h.Service().Entry(dec.MessageID)
	if !ok || !e.DecidedAt.Equal(c.At) || e.DecidedAt.Equal(dec.At) {
		t.Errorf("the hub's journal records the decision at %s, want the confirmation's %s (the dialog opened at %s)", e.DecidedAt, c.At, dec.At)
	}
	task := fx.ag.WaitState(id, func(s a2a.TaskState) bool { return model.ClassOf(s) == model.ClassTerminal })
	at := ""
	for _, m := range task.History {
		for _, p := range m.Parts {
			if data, ok := p.Data().(map[string]any); ok && m.ID == dec.MessageID {
				at, _ = data["at"].(string)
			}
		}
	}
	if want := c.At.UTC().Format(time.RFC3339); at != want {
		t.Errorf("the agent got at %q, want the confirmation's %q", at, want)
	}
}
