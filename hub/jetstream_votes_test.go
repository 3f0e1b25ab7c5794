package hub_test

import (
	"context"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/approvals/jetstore"
	"a2atop/hub"
	"a2atop/internal/agenttest"
)

// fourEyesOnNATS is a team of three hubs on the cluster's record with
// the fourEyes policy on their agent; alice and dave are in release.
func fourEyesOnNATS(t *testing.T, c *natsCluster, ag *agenttest.Agent) []*fixture {
	t.Helper()
	return teamOnNATS(t, c, ag, func(_ *jetstore.Store, o *hub.Options) {
		withFourEyes(o, "alice", "dave")
	})
}

// TestVotesOnTwoHubsOnNATS: alice (hub 1) and dave (hub 2) approve one
// production prompt that needs two, on a real three-node JetStream
// record: one after the other, then at the same moment, ten times. Each
// time exactly one message reaches the agent (counted at the agent),
// naming both: a vote is a record on the prompt's subject, so the
// compare-and-set orders two votes cast on two hubs at once, and the
// second sees the first and completes the approval.
func TestVotesOnTwoHubsOnNATS(t *testing.T) {
	c := startNATSCluster(t)
	ag := agenttest.StartAgent(t)
	fxs := fourEyesOnNATS(t, c, ag)
	alice, dave := fxs[0].attach("alice"), fxs[1].attach("dave")
	for round := range 11 {
		id := ag.Start("deploy production")
		inboxesHold("the deploy reaches the inbox", []*dash{alice, dave}, id)
		decs := []*approvals.Decision{alice.prepare(id, approvals.Input{Kind: approvals.KindApprove, Reason: "a"}),
			dave.prepare(id, approvals.Input{Kind: approvals.KindApprove, Reason: "d"})}
		outs := make([]approvals.Outcome, 2)
		if round == 0 { // one after the other
			outs[0] = alice.svc.Send(context.Background(), decs[0])
			dave.waitVotes(id, "1 of 2 · alice ")
			outs[1] = dave.svc.Send(context.Background(), dave.prepare(id, approvals.Input{Kind: approvals.KindApprove, Reason: "d"}))
		} else {
			outs = sendAtOnce([]*dash{alice, dave}, decs)
		}
		results := map[approvals.Result]int{}
		for _, o := range outs {
			results[o.Result]++
		}
		if results[approvals.ResultVoted] != 1 || results[approvals.ResultAccepted] != 1 {
			t.Fatalf("round %d: alice %q (%v) / dave %q (%v), want one vote recorded and one approval sent", round, outs[0].Words(), outs[0].Err, outs[1].Words(), outs[1].Err)
		}
		ag.WaitState(id, func(s a2a.TaskState) bool { return s == a2a.TaskStateCompleted })
		if got := namesSent(ag, id); len(got) != 1 || (got[0] != "alice,dave" && got[0] != "dave,alice") {
			t.Fatalf("round %d: the agent received %q, want one message naming both", round, got)
		}
	}
}
