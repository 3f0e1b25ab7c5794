package approvals

import (
	"testing"
	"time"
)

// TestResetFollowKeepsEachVoteOnce: a Service attached to a hub follows
// alice's vote on a production prompt, then takes the hub's snapshot of
// the same lines in place (ResetFollow, as after a long absence): it
// holds the vote once, not twice (under a policy where one person's
// votes may count more than once, so that a vote held twice would count
// twice), and Holds says the hub keeps its
// line (a hub's feed keeps the lines of the votes its Service holds).
func TestResetFollowKeepsEachVoteOnce(t *testing.T) {
	pol := fourEyes
	pol.Repeat = true // a vote held twice would count twice
	fx := newVoteFixture(t, pol)
	var tp tap
	alice, err := Open(Options{JournalPath: fx.path, Sender: fx.snd, Approver: "alice", SendTimeout: 5 * time.Second,
		Agents: []Agent{{Name: "agent", URL: fx.ag.URL}}, Policies: map[string]Policy{"agent": fx.pol}, Now: fx.clock.Now, OnJournal: tp.on})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { alice.Close() })
	id := fx.ag.Start("deploy production")
	mt := fx.asking(t, id, 0)
	o := vote(t, alice, mt, KindApprove, "window ok")
	if o.Result != ResultVoted {
		t.Fatalf("alice: %s", o.Words())
	}
	if !alice.Holds(o.MessageID) {
		t.Errorf("alice's own Service does not hold her open vote %s: a hub would drop its line from the feed", o.MessageID)
	}
	mirror, err := Open(Options{Hub: &refusingHub{}, Approver: "bob", Agents: []Agent{{Name: "agent", URL: fx.ag.URL}},
		Policies: map[string]Policy{"agent": fx.pol}, Now: fx.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	lines := tp.all()
	if err := mirror.Follow(lines); err != nil {
		t.Fatal(err)
	}
	if err := mirror.ResetFollow(lines); err != nil {
		t.Fatal(err)
	}
	vs := mirror.VotesOn(mirror.ItemFor(mt))
	if len(vs.Approvals) != 1 || vs.Approvals[0].Name != "alice" {
		t.Errorf("after the resync the mirror counts %d approvals (%q); want alice's, once", len(vs.Approvals), vs.Row())
	}
}
