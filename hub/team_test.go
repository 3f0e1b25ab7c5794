package hub_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/hub"
	"a2atop/model"
)

// TestTwoDashboardsSeeOneInbox: two attached dashboards see the same
// prompt; one answers it, the agent receives that one reply, and the
// prompt leaves both inboxes. The journal records the authenticated
// operator.
func TestTwoDashboardsSeeOneInbox(t *testing.T) {
	fx := newFixture(t)
	alice, bob := fx.attach("alice"), fx.attach("bob")
	id := fx.ag.Start("ask")
	for _, d := range []*dash{alice, bob} {
		d.waitFor("the question reaches the inbox", func(f *model.Fleet) bool { return d.inInbox(f, id) })
	}
	dec := bob.prepare(id, approvals.Input{Kind: approvals.KindReply, Text: "main"})
	out := bob.svc.Send(context.Background(), dec)
	if out.Result != approvals.ResultAccepted {
		t.Fatalf("bob's reply: %s (%v)", out.Words(), out.Err)
	}
	for _, d := range []*dash{alice, bob} {
		d.waitFor("the answered task leaves the inbox", func(f *model.Fleet) bool { return !d.inInbox(f, id) })
	}
	if n := fx.ag.OnTask(id); n != 1 {
		t.Errorf("the agent received %d messages on the task, want 1", n)
	}
	e, ok := alice.svc.Entry(dec.MessageID)
	if !ok || e.Approver != "bob" || !e.Elsewhere {
		t.Errorf("alice's journal holds %+v, want bob's decision, made elsewhere", e)
	}
	if e, _ := bob.svc.Entry(dec.MessageID); e.Elsewhere {
		t.Error("bob's own decision shows as made elsewhere on his dashboard")
	}
}

// TestSimultaneousApprovalsOneWins: two approvers approve the same
// prompt at the same moment, fifty times: each time exactly one message
// reaches the agent (counted by the agent), and the other approver is
// refused with who decided.
func TestSimultaneousApprovalsOneWins(t *testing.T) {
	fx := newFixture(t)
	alice, dave := fx.attach("alice"), fx.attach("dave")
	for round := range 50 {
		id := fx.ag.Start("deploy")
		inboxesHold("the deploy reaches the inbox", []*dash{alice, dave}, id)
		decs := []*approvals.Decision{alice.prepare(id, approvals.Input{Kind: approvals.KindApprove}),
			dave.prepare(id, approvals.Input{Kind: approvals.KindApprove})}
		outs := sendAtOnce([]*dash{alice, dave}, decs)
		accepted, refused := 0, -1
		for i, o := range outs {
			switch {
			case o.Result == approvals.ResultAccepted:
				accepted++
			case o.Winner != nil:
				refused = i
			default:
				t.Fatalf("round %d: an outcome neither accepted nor refused with a winner: %s (%v)", round, o.Words(), o.Err)
			}
		}
		if accepted != 1 || refused < 0 {
			t.Fatalf("round %d: %d accepted, want exactly 1 and the other refused (%s / %s)", round, accepted, outs[0].Words(), outs[1].Words())
		}
		winner := []string{"alice", "dave"}[1-refused]
		if w := outs[refused]; w.Winner.Approver != winner || !strings.HasPrefix(w.Words(), "decided by "+winner+" at ") {
			t.Fatalf("round %d: the refusal says %q, want it to name %s", round, w.Words(), winner)
		}
		if n := fx.ag.OnTask(id); n != 1 {
			t.Fatalf("round %d: the agent received %d messages on the task, want 1", round, n)
		}
	}
}

// TestRolesAreTheHubs: an operator without approve is refused by the hub
// (403, in words), through the dashboard and asked directly; nothing
// reaches the agent.
func TestRolesAreTheHubs(t *testing.T) {
	fx := newFixture(t)
	bob := fx.attach("bob")
	id := fx.ag.Start("deploy")
	bob.waitFor("the deploy reaches the inbox", func(f *model.Fleet) bool { return bob.inInbox(f, id) })
	dec := bob.prepare(id, approvals.Input{Kind: approvals.KindApprove})
	out := bob.svc.Send(context.Background(), dec)
	if out.Problem != approvals.ProblemForbidden || out.Result != approvals.ResultRefused {
		t.Fatalf("bob's approval: %s (%v), want refused: forbidden", out.Words(), out.Err)
	}
	if !strings.Contains(out.Err.Error(), "operator bob may not approve on agent agent (roles there: watch, answer)") {
		t.Errorf("the refusal says %q", out.Err)
	}
	// Asked directly, without a dashboard.
	body, _ := json.Marshal(hub.RequestOf(approvals.Request{Decision: *dec}))
	req, _ := http.NewRequest(http.MethodPost, fx.srv.URL+"/v1/decisions", strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer "+tokens["bob"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("POST /v1/decisions as bob: %d, want 403", resp.StatusCode)
	}
	if n := fx.ag.OnTask(id); n != 0 {
		t.Errorf("the agent received %d messages, want none", n)
	}
	if _, ok := bob.svc.Entry(dec.MessageID); ok {
		t.Error("a refused decision is in the journal")
	}
	_ = a2a.TaskStateAuthRequired
}
