package hub_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"a2atop/approvals"
	"a2atop/hubclient"
	"a2atop/model"
)

// TestHubAwayKeepsThePictureAndRefusesWrites: when the hub cannot be
// reached the dashboard keeps its tasks, marks the agent stale with the
// reason, and sends nothing (a decision, a cancel, a claim); when the hub
// is back it resumes where it was and its fleet equals the hub's again.
func TestHubAwayKeepsThePictureAndRefusesWrites(t *testing.T) {
	fx := newFixture(t)
	alice := fx.attach("alice", func(o *hubclient.Options) { o.MinBackoff, o.MaxBackoff = 20*time.Millisecond, 100*time.Millisecond })
	id := fx.ag.Start("deploy")
	alice.waitFor("the deploy", func(f *model.Fleet) bool { return alice.inInbox(f, id) })
	dec := alice.prepare(id, approvals.Input{Kind: approvals.KindApprove})

	addr := fx.srv.Listener.Addr().String()
	fx.srv.Listener.Close()
	fx.srv.CloseClientConnections()
	alice.waitFor("the agent marked stale", func(f *model.Fleet) bool {
		a := f.Agent("agent")
		return a.Health.State == model.HealthUnreachable && strings.Contains(a.Health.Err, "cannot be reached") && strings.Contains(a.Health.Err, "showing what the hub last sent")
	})
	alice.read(func(f *model.Fleet) {
		if t2 := f.Task(model.TaskKey{Agent: "agent", ID: id}); t2 == nil || !t2.Stale {
			t.Errorf("the deploy while the hub is away: %+v, want it kept and stale", t2)
		}
	})
	if o := alice.svc.Send(context.Background(), dec); o.Problem != approvals.ProblemHub || !strings.Contains(o.Err.Error(), "nothing is sent until the dashboard reconnects") {
		t.Errorf("a decision while the hub is away: %s (%v)", o.Words(), o.Err)
	}
	if _, err := alice.cl.Cancel(context.Background(), "agent", id); err == nil {
		t.Error("a cancel while the hub is away was not refused")
	}
	if err := alice.cl.Claim(context.Background(), "agent", id, "approving"); err == nil {
		t.Error("a claim while the hub is away was not refused")
	}
	if n := fx.ag.OnTask(id); n != 0 {
		t.Fatalf("the agent received %d messages", n)
	}

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the hub's port cannot be taken again: %v", err)
	}
	srv := &http.Server{Handler: fx.h.Handler()}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	alice.waitFor("the agent up again", func(f *model.Fleet) bool { return f.Agent("agent").Health.State.Up() })
	fx.waitSame(alice)
	if o := alice.svc.Send(context.Background(), dec); o.Result != approvals.ResultAccepted {
		t.Errorf("the decision once the hub is back: %s (%v)", o.Words(), o.Err)
	}
	if c, _ := alice.cl.Connected(); !c {
		t.Error("the client says it is not connected")
	}
}
