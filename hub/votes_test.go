package hub_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/hub"
	"a2atop/internal/agenttest"
	"a2atop/model"
)

// fourEyes is the policy of the vote tests: production takes two
// approvals from the release group, staging one; votes count 30 minutes.
var fourEyes = approvals.Policy{Required: 1, Approvers: []string{"release"}, VoteTTL: 30 * time.Minute,
	Rules: []approvals.Rule{{When: map[string]any{"environment": "production"}, Required: 2}}}

// hubClock is the hub's journal clock, which a test moves on.
type hubClock struct {
	mu   sync.Mutex
	skew time.Duration
}

func (c *hubClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.skew)
}

func (c *hubClock) add(d time.Duration) {
	c.mu.Lock()
	c.skew += d
	c.mu.Unlock()
}

// newVoteHub is the fixture's hub with fourEyes on its agent; alice and
// dave (who both approve) are in group release.
func newVoteHub(t *testing.T, clock *hubClock) *fixture {
	t.Helper()
	return newFixture(t, func(o *hub.Options) {
		withFourEyes(o, "alice", "dave")
		if clock != nil {
			o.Journal.Now = clock.Now
		}
	})
}

// voteOn prepares d's operator's approve or deny on the task and sends
// it through the hub.
func (d *dash) voteOn(id a2a.TaskID, kind approvals.Kind, reason string) approvals.Outcome {
	d.t.Helper()
	return d.svc.Send(context.Background(), d.prepare(id, approvals.Input{Kind: kind, Reason: reason}))
}

// voteFirst is d's approval, "ok", the first of two: it is recorded,
// nothing is sent, and other's inbox shows it.
func (d *dash) voteFirst(id a2a.TaskID, other *dash) {
	d.t.Helper()
	if o := d.voteOn(id, approvals.KindApprove, "ok"); o.Result != approvals.ResultVoted {
		d.t.Fatalf("%s: %s (%v)", d.me.Operator, o.Words(), o.Err)
	}
	other.waitVotes(id, "1 of 2 · "+d.me.Operator+" ")
}

// waitVotes waits until the dashboard's journal shows the votes row.
func (d *dash) waitVotes(id a2a.TaskID, prefix string) string {
	d.t.Helper()
	row := ""
	d.waitFor("the votes "+prefix, func(f *model.Fleet) bool {
		it, ok := d.svc.ItemOf(f, model.TaskKey{Agent: "agent", ID: id})
		row = d.svc.VotesOn(it).Row()
		return ok && strings.HasPrefix(row, prefix)
	})
	return row
}

// namesSent is the approvers each message the agent received on the
// task names.
func namesSent(ag *agenttest.Agent, id a2a.TaskID) []string {
	var out []string
	for _, m := range ag.Received(id) {
		var names []string
		for _, p := range m.Parts {
			data, _ := p.Data().(map[string]any)
			list, _ := data["approvers"].([]any)
			for _, a := range list {
				v, _ := a.(map[string]any)
				if n, _ := v["name"].(string); n != "" && v["at"] != "" {
					names = append(names, n)
				}
			}
		}
		out = append(out, strings.Join(names, ","))
	}
	return out
}

// TestTwoOperatorsApproveOneProductionPrompt: alice and dave approve one
// production prompt from two dashboards: alice's vote sends nothing and
// shows on dave's inbox as 1 of 2; dave's completes it: the agent gets
// exactly one message, naming both.
func TestTwoOperatorsApproveOneProductionPrompt(t *testing.T) {
	fx := newVoteHub(t, nil)
	alice, dave := fx.attach("alice"), fx.attach("dave")
	id := fx.ag.Start("deploy production")
	inboxesHold("the deploy reaches the inbox", []*dash{alice, dave}, id)
	o := alice.voteOn(id, approvals.KindApprove, "rollout window ok")
	if o.Result != approvals.ResultVoted || o.Words() != "your vote is 1 of 2: nothing is sent yet" {
		t.Fatalf("alice's vote: %s (%v)", o.Words(), o.Err)
	}
	if n := fx.ag.OnTask(id); n != 0 {
		t.Fatalf("the agent received %d messages after one vote of two", n)
	}
	if row := dave.waitVotes(id, "1 of 2 · alice "); !strings.HasSuffix(row, `"rollout window ok"`) {
		t.Errorf("dave's row: %q", row)
	}
	dec := dave.prepare(id, approvals.Input{Kind: approvals.KindApprove, Reason: "diff checked"})
	if dec.Vote == nil || dec.Vote.Words() != "your vote completes the approval: it will be sent" {
		t.Fatalf("dave's vote as prepared: %+v", dec.Vote)
	}
	o = dave.svc.Send(context.Background(), dec)
	if o.Result != approvals.ResultAccepted || o.Votes == nil || o.Votes.Names() != "alice, dave" {
		t.Fatalf("dave's vote: %s (%v) %+v", o.Words(), o.Err, o.Votes)
	}
	fx.ag.WaitState(id, func(s a2a.TaskState) bool { return s == a2a.TaskStateCompleted })
	if got := namesSent(fx.ag, id); len(got) != 1 || got[0] != "alice,dave" {
		t.Errorf("the agent received %q, want one message naming alice and dave", got)
	}
}

// TestSimultaneousLastVotesSendOnce: alice and dave vote on a prompt
// that needs two at the same moment, twenty times: each time exactly one
// message reaches the agent, naming both.
func TestSimultaneousLastVotesSendOnce(t *testing.T) {
	fx := newVoteHub(t, nil)
	alice, dave := fx.attach("alice"), fx.attach("dave")
	for round := range 20 {
		id := fx.ag.Start("deploy production")
		inboxesHold("the deploy reaches the inbox", []*dash{alice, dave}, id)
		decs := []*approvals.Decision{alice.prepare(id, approvals.Input{Kind: approvals.KindApprove, Reason: "a"}),
			dave.prepare(id, approvals.Input{Kind: approvals.KindApprove, Reason: "d"})}
		outs := sendAtOnce([]*dash{alice, dave}, decs)
		results := map[approvals.Result]int{}
		for _, o := range outs {
			results[o.Result]++
		}
		if results[approvals.ResultVoted] != 1 || results[approvals.ResultAccepted] != 1 {
			t.Fatalf("round %d: %s / %s, want one vote recorded and one approval sent", round, outs[0].Words(), outs[1].Words())
		}
		fx.ag.WaitState(id, func(s a2a.TaskState) bool { return s == a2a.TaskStateCompleted })
		if got := namesSent(fx.ag, id); len(got) != 1 || (got[0] != "alice,dave" && got[0] != "dave,alice") {
			t.Fatalf("round %d: the agent received %q, want one message naming both", round, got)
		}
	}
}

// TestOperatorVotesOnce: one operator voting twice (from two dashboards
// of theirs, the second prepared before the first vote was recorded) is
// refused by the hub in words; nothing reaches the agent.
func TestOperatorVotesOnce(t *testing.T) {
	fx := newVoteHub(t, nil)
	here, there := fx.attach("alice"), fx.attach("alice")
	id := fx.ag.Start("deploy production")
	inboxesHold("the deploy reaches the inbox", []*dash{here, there}, id)
	early := there.prepare(id, approvals.Input{Kind: approvals.KindApprove, Reason: "me again"})
	if o := here.voteOn(id, approvals.KindApprove, "ok"); o.Result != approvals.ResultVoted {
		t.Fatalf("the first vote: %s (%v)", o.Words(), o.Err)
	}
	o := there.svc.Send(context.Background(), early)
	if o.Result != approvals.ResultRefused || o.Problem != approvals.ProblemVoted || !errors.Is(o.Err, approvals.ErrAlreadyVoted) ||
		!strings.Contains(o.Err.Error(), "you voted on this prompt already") {
		t.Fatalf("the second vote: %s (%v)", o.Words(), o.Err)
	}
	// The dashboard that saw the first vote refuses before asking the hub.
	there.waitVotes(id, "1 of 2 · alice ")
	var err error
	there.read(func(f *model.Fleet) {
		it, _ := there.svc.ItemOf(f, model.TaskKey{Agent: "agent", ID: id})
		_, err = there.svc.Prepare(it, approvals.Input{Kind: approvals.KindApprove, Reason: "again"})
	})
	if !errors.Is(err, approvals.ErrAlreadyVoted) {
		t.Errorf("a vote prepared after the first one shows: %v", err)
	}
	if n := fx.ag.OnTask(id); n != 0 {
		t.Errorf("the agent received %d messages", n)
	}
}

// TestDenialSendsAtOnce: with deny = "any", dave's denial after alice's
// approval is sent at once, naming dave.
func TestDenialSendsAtOnce(t *testing.T) {
	fx := newVoteHub(t, nil)
	alice, dave := fx.attach("alice"), fx.attach("dave")
	id := fx.ag.Start("deploy production")
	inboxesHold("the deploy reaches the inbox", []*dash{alice, dave}, id)
	alice.voteFirst(id, dave)
	o := dave.voteOn(id, approvals.KindDeny, "not during the freeze")
	if o.Result != approvals.ResultAccepted || o.Votes == nil || o.Votes.Names() != "dave" {
		t.Fatalf("dave's denial: %s (%v) %+v", o.Words(), o.Err, o.Votes)
	}
	fx.ag.WaitState(id, func(s a2a.TaskState) bool { return s == a2a.TaskStateFailed })
	if got := namesSent(fx.ag, id); len(got) != 1 || got[0] != "dave" {
		t.Errorf("the agent received %q, want dave's denial alone", got)
	}
}

// TestOldVoteIsNotCounted: a vote older than vote_ttl on the hub's clock
// is not counted: the next vote is 1 of 2 again, nothing is sent.
func TestOldVoteIsNotCounted(t *testing.T) {
	clock := &hubClock{}
	fx := newVoteHub(t, clock)
	alice, dave := fx.attach("alice"), fx.attach("dave")
	id := fx.ag.Start("deploy production")
	inboxesHold("the deploy reaches the inbox", []*dash{alice, dave}, id)
	alice.voteFirst(id, dave)
	clock.add(31 * time.Minute)
	o := dave.voteOn(id, approvals.KindApprove, "ok too")
	if o.Result != approvals.ResultVoted || o.Votes == nil || o.Votes.Names() != "dave" {
		t.Fatalf("dave after alice's vote expired: %s (%v) %+v", o.Words(), o.Err, o.Votes)
	}
	if n := fx.ag.OnTask(id); n != 0 {
		t.Errorf("the agent received %d messages", n)
	}
}

// TestChangedPromptDropsItsVotes: alice votes; the agent asks again (a
// new prompt); dave's vote is then 1 of 2 and his inbox says alice's
// vote was dropped; nothing is sent.
func TestChangedPromptDropsItsVotes(t *testing.T) {
	fx := newVoteHub(t, nil)
	alice, dave := fx.attach("alice"), fx.attach("dave")
	id := fx.ag.Start("deploy production")
	inboxesHold("the deploy reaches the inbox", []*dash{alice, dave}, id)
	alice.voteFirst(id, dave)
	fx.ag.Reask(id)
	row := dave.waitVotes(id, "0 of 2")
	if !strings.Contains(row, "the prompt changed: 1 earlier vote dropped") {
		t.Errorf("dave's row after the prompt changed: %q", row)
	}
	dave.waitFor("the new prompt", func(f *model.Fleet) bool {
		t := f.Task(model.TaskKey{Agent: "agent", ID: id})
		return t != nil && t.Snapshot != nil && strings.Contains(t.Snapshot.Status.Message.Parts[0].Text(), "9f3c2e2")
	})
	o := dave.voteOn(id, approvals.KindApprove, "ok")
	if o.Result != approvals.ResultVoted || o.Votes == nil || o.Votes.Names() != "dave" {
		t.Fatalf("dave on the new prompt: %s (%v) %+v", o.Words(), o.Err, o.Votes)
	}
	if n := fx.ag.OnTask(id); n != 0 {
		t.Errorf("the agent received %d messages", n)
	}
}

// TestStagingPromptStaysOneClick: a prompt no rule matches is sent on
// the first approval; an approver outside the release group may not
// vote (the dashboard knows it from /v1/me and says so).
func TestStagingPromptStaysOneClick(t *testing.T) {
	fx := newFixture(t, func(o *hub.Options) { withFourEyes(o, "alice") })
	alice, dave := fx.attach("alice"), fx.attach("dave")
	id := fx.ag.Start("deploy staging")
	alice.waitFor("the deploy reaches the inbox", func(f *model.Fleet) bool { return alice.inInbox(f, id) })
	if o := alice.voteOn(id, approvals.KindApprove, "ok"); o.Result != approvals.ResultAccepted {
		t.Fatalf("a staging approval: %s (%v)", o.Words(), o.Err)
	}
	if got := namesSent(fx.ag, id); len(got) != 1 || got[0] != "alice" {
		t.Errorf("the agent received %q", got)
	}
	prod := fx.ag.Start("deploy production")
	dave.waitFor("the deploy reaches the inbox", func(f *model.Fleet) bool { return dave.inInbox(f, prod) })
	var err error
	dave.read(func(f *model.Fleet) {
		it, _ := dave.svc.ItemOf(f, model.TaskKey{Agent: "agent", ID: prod})
		_, err = dave.svc.Prepare(it, approvals.Input{Kind: approvals.KindApprove, Reason: "ok"})
	})
	if !errors.Is(err, approvals.ErrNotApprover) || !strings.Contains(err.Error(), "only release may vote") {
		t.Errorf("dave, outside the group: %v", err)
	}
}

// TestVotesOutliveTheHub: alice's vote is in the hub's journal; the hub
// stops and another starts on the same journal and agent: dave's vote
// completes the approval, which names both.
func TestVotesOutliveTheHub(t *testing.T) {
	fx := newVoteHub(t, nil)
	alice := fx.attach("alice")
	id := fx.ag.Start("deploy production")
	alice.waitFor("the deploy reaches the inbox", func(f *model.Fleet) bool { return alice.inInbox(f, id) })
	if o := alice.voteOn(id, approvals.KindApprove, "ok"); o.Result != approvals.ResultVoted {
		t.Fatalf("alice: %s (%v)", o.Words(), o.Err)
	}
	fx.stop()
	again := newFixtureOn(t, fx.ag, 100*time.Millisecond, func(o *hub.Options) {
		o.Journal.JournalPath = fx.journal
		withFourEyes(o, "alice", "dave")
	})
	dave := again.attach("dave")
	dave.waitFor("the deploy reaches the inbox", func(f *model.Fleet) bool { return dave.inInbox(f, id) })
	dave.waitVotes(id, "1 of 2 · alice ")
	if o := dave.voteOn(id, approvals.KindApprove, "ok too"); o.Result != approvals.ResultAccepted || o.Votes.Names() != "alice, dave" {
		t.Fatalf("dave after the restart: %s (%v) %+v", o.Words(), o.Err, o.Votes)
	}
	if got := namesSent(fx.ag, id); len(got) != 1 || got[0] != "alice,dave" {
		t.Errorf("the agent received %q", got)
	}
}
