package approvals

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/agenttest"
	"a2atop/model"
)

// fourEyes is the policy the vote tests run under: production takes two
// approvals that say why, staging one; votes count for 30 minutes.
var fourEyes = Policy{Required: 1, RequireReason: true, VoteTTL: 30 * time.Minute,
	Rules: []Rule{{When: map[string]any{"environment": "production"}, Required: 2}}}

// voteFixture is a real SDK agent (internal/agenttest) and the
// processes that share one journal, each a Service of its own.
type voteFixture struct {
	ag    *agenttest.Agent
	snd   *sdkSender
	path  string
	clock *testClock
	pol   Policy
}

// testClock is a clock a test moves on; safe for concurrent use.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func newVoteFixture(t *testing.T, pol Policy) *voteFixture {
	t.Helper()
	fx := &voteFixture{ag: agenttest.StartAgent(t), snd: newSDKSender(), path: filepath.Join(t.TempDir(), "journal.jsonl"),
		clock: &testClock{now: time.Now().UTC()}, pol: pol}
	fx.snd.add(t, "agent", fx.ag.URL, "")
	return fx
}

// open is one process on the journal, for approver.
func (fx *voteFixture) open(t *testing.T, approver string) *Service {
	t.Helper()
	svc, err := Open(Options{JournalPath: fx.path, Sender: fx.snd, Approver: approver, SendTimeout: 5 * time.Second,
		Agents: []Agent{{Name: "agent", URL: fx.ag.URL}}, Policies: map[string]Policy{"agent": fx.pol}, Now: fx.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

// asking is the task as the fleet holds it once it waits for a decision
// on its n-th prompt (0 the first).
func (fx *voteFixture) asking(t *testing.T, id a2a.TaskID, n int) *model.Task {
	t.Helper()
	want := "9f3c2e" + string(rune('1'+n))
	for range 3000 {
		snap := fx.ag.WaitState(id, func(s a2a.TaskState) bool { return s == a2a.TaskStateAuthRequired })
		if m := snap.Status.Message; m != nil && len(m.Parts) > 0 && strings.Contains(m.Parts[0].Text(), want) {
			return modelTask("agent", snap)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("task %s never asked about %s", id, want)
	return nil
}

// vote prepares and sends an approve or deny of svc's approver.
func vote(t *testing.T, svc *Service, mt *model.Task, kind Kind, reason string) Outcome {
	t.Helper()
	if _, err := svc.Refresh(); err != nil {
		t.Fatal(err)
	}
	d, err := svc.Prepare(svc.ItemFor(mt), Input{Kind: kind, Reason: reason})
	if err != nil {
		t.Fatalf("%s prepares %s: %v", svc.Approver(), kind, err)
	}
	return svc.Send(context.Background(), d)
}

// approversSent is the "approvers" the messages the agent received on
// the task carry, by name.
func approversSent(t *testing.T, ag *agenttest.Agent, id a2a.TaskID) [][]string {
	t.Helper()
	var out [][]string
	for _, m := range ag.Received(id) {
		var names []string
		for _, p := range m.Parts {
			data, _ := p.Data().(map[string]any)
			list, _ := data["approvers"].([]any)
			for _, a := range list {
				v, _ := a.(map[string]any)
				name, _ := v["name"].(string)
				if at, _ := v["at"].(string); at == "" {
					t.Errorf("approver %q is sent without its time: %v", name, v)
				}
				names = append(names, name)
			}
		}
		out = append(out, names)
	}
	return out
}

// TestTwoProcessesApproveOnceWithBothNames: two people approve one
// production prompt from two processes sharing a journal: the first
// vote sends nothing, the second sends the approval once, naming both.
func TestTwoProcessesApproveOnceWithBothNames(t *testing.T) {
	fx := newVoteFixture(t, fourEyes)
	alice, bob, id, mt := fx.production(t)

	o := vote(t, alice, mt, KindApprove, "rollout window ok")
	if o.Result != ResultVoted || o.Words() != "your vote is 1 of 2: nothing is sent yet" {
		t.Fatalf("alice's vote: %s (%v)", o.Words(), o.Err)
	}
	if n := fx.ag.OnTask(id); n != 0 {
		t.Fatalf("the agent received %d messages after one vote of two, want none", n)
	}
	if _, err := bob.Refresh(); err != nil {
		t.Fatal(err)
	}
	vs := bob.VotesOn(bob.ItemFor(mt))
	if row := vs.Row(); !strings.HasPrefix(row, "1 of 2 · alice ") || !strings.HasSuffix(row, ` "rollout window ok"`) {
		t.Errorf("bob's inbox row says %q", row)
	}
	d, err := bob.Prepare(bob.ItemFor(mt), Input{Kind: KindApprove, Reason: "checked the diff"})
	if err != nil || d.Vote == nil || d.Vote.Words() != "your vote completes the approval: it will be sent" {
		t.Fatalf("bob's vote prepared: %+v, %v", d, err)
	}
	o = bob.Send(context.Background(), d)
	if o.Result != ResultAccepted || o.Votes == nil || o.Votes.Names() != "alice, bob" {
		t.Fatalf("bob's vote: %s (%v), votes %+v", o.Words(), o.Err, o.Votes)
	}
	if got := approversSent(t, fx.ag, id); len(got) != 1 || strings.Join(got[0], ",") != "alice,bob" {
		t.Errorf("the agent received %v, want one message naming alice and bob", got)
	}
	if _, err := alice.Refresh(); err != nil {
		t.Fatal(err)
	}
	if e, ok := alice.Entry(d.MessageID); !ok || len(e.Votes) != 2 || e.Approver != "bob" {
		t.Errorf("alice's journal holds %+v, want bob's approval with two votes", e)
	}
}

// TestOnePersonVotesOnce: a second vote of the same person, from
// another process of theirs, is refused in words, prepared before or
// after the first was journaled; nothing is sent.
func TestOnePersonVotesOnce(t *testing.T) {
	fx := newVoteFixture(t, fourEyes)
	here, there := fx.open(t, "alice"), fx.open(t, "alice")
	id := fx.ag.Start("deploy production")
	mt := fx.asking(t, id, 0)
	early, err := there.Prepare(there.ItemFor(mt), Input{Kind: KindApprove, Reason: "again"})
	if err != nil {
		t.Fatal(err)
	}
	if o := vote(t, here, mt, KindApprove, "rollout window ok"); o.Result != ResultVoted {
		t.Fatalf("the first vote: %s (%v)", o.Words(), o.Err)
	}
	if _, err := there.Refresh(); err != nil {
		t.Fatal(err)
	}
	if _, err := there.Prepare(there.ItemFor(mt), Input{Kind: KindApprove, Reason: "again"}); !errors.Is(err, ErrAlreadyVoted) ||
		!strings.Contains(err.Error(), "you approved at ") {
		t.Errorf("a second vote prepared: %v, want ErrAlreadyVoted in words", err)
	}
	o := there.Send(context.Background(), early)
	if o.Result != ResultRefused || o.Problem != ProblemVoted || !errors.Is(o.Err, ErrAlreadyVoted) {
		t.Errorf("a second vote prepared before the first: %s (%v)", o.Words(), o.Err)
	}
	noneSent(t, fx.ag, id)
}

// TestDenyAnySendsAtOnce: with deny = "any", one denial is sent at
// once, even after an approval.
func TestDenyAnySendsAtOnce(t *testing.T) {
	fx := newVoteFixture(t, fourEyes)
	alice, bob, id, mt := fx.production(t)
	voted(t, alice, mt)
	o := vote(t, bob, mt, KindDeny, "not during the freeze")
	if o.Result != ResultAccepted || o.Votes == nil || !o.Votes.Complete || o.Votes.Names() != "bob" {
		t.Fatalf("bob's denial: %s (%v) %+v", o.Words(), o.Err, o.Votes)
	}
	if got := approversSent(t, fx.ag, id); len(got) != 1 || strings.Join(got[0], ",") != "bob" {
		t.Errorf("the agent received %v, want bob's denial alone", got)
	}
	fx.ag.WaitState(id, func(s a2a.TaskState) bool { return s == a2a.TaskStateFailed })
}

// TestDenyMajorityIsAVote: with deny = "majority", a denial is a vote.
func TestDenyMajorityIsAVote(t *testing.T) {
	pol := fourEyes
	pol.Deny = DenyMajority
	fx := newVoteFixture(t, pol)
	alice, bob, id, mt := fx.production(t)
	if o := vote(t, alice, mt, KindDeny, "freeze"); o.Result != ResultVoted || o.Words() != "your vote is 1 of 2: nothing is sent yet" {
		t.Fatalf("alice's denial: %s (%v)", o.Words(), o.Err)
	}
	if o := vote(t, bob, mt, KindDeny, "freeze indeed"); o.Result != ResultAccepted {
		t.Fatalf("bob's denial: %s (%v)", o.Words(), o.Err)
	}
	if n := fx.ag.OnTask(id); n != 1 {
		t.Errorf("the agent received %d messages, want 1", n)
	}
}

// TestOldVoteDoesNotCount: a vote older than vote_ttl is not counted:
// the next one is 1 of 2 again and nothing is sent.
func TestOldVoteDoesNotCount(t *testing.T) {
	fx := newVoteFixture(t, fourEyes)
	alice, bob, id, mt := fx.production(t)
	voted(t, alice, mt)
	fx.clock.add(31 * time.Minute)
	o := vote(t, bob, mt, KindApprove, "ok too")
	if o.Result != ResultVoted || o.Votes.Names() != "bob" {
		t.Fatalf("bob after alice's vote expired: %s (%v) %+v", o.Words(), o.Err, o.Votes)
	}
	if vs := bob.VotesOn(bob.ItemFor(mt)); vs.Expired != 1 || len(vs.Approvals) != 1 {
		t.Errorf("votes: %+v, want alice's expired and bob's counted", vs)
	}
	noneSent(t, fx.ag, id)
	// Alice's expired vote no longer stands for her: she may vote again.
	if o := vote(t, alice, mt, KindApprove, "still ok"); o.Result != ResultAccepted {
		t.Errorf("alice again: %s (%v)", o.Words(), o.Err)
	}
}

// TestChangedPromptDropsVotes: a vote is for one prompt; when the task
// asks again, the votes for the earlier question do not count, and the
// state says they were dropped.
func TestChangedPromptDropsVotes(t *testing.T) {
	fx := newVoteFixture(t, fourEyes)
	alice, bob := fx.open(t, "alice"), fx.open(t, "bob")
	id := fx.ag.Start("deploy production")
	first := fx.asking(t, id, 0)
	voted(t, alice, first)
	fx.ag.Reask(id)
	second := fx.asking(t, id, 1)
	if _, err := bob.Refresh(); err != nil {
		t.Fatal(err)
	}
	vs := bob.VotesOn(bob.ItemFor(second))
	if vs.Dropped != 1 || len(vs.Approvals) != 0 || !strings.Contains(vs.Row(), "the prompt changed: 1 earlier vote dropped") {
		t.Errorf("the new prompt's votes: %+v (%q)", vs, vs.Row())
	}
	if o := vote(t, bob, second, KindApprove, "ok"); o.Result != ResultVoted || o.Votes.Names() != "bob" {
		t.Fatalf("bob on the new prompt: %s (%v)", o.Words(), o.Err)
	}
	noneSent(t, fx.ag, id)
}

// TestStagingStaysOneClick: a prompt no rule matches needs one
// approval: it is sent at once.
func TestStagingStaysOneClick(t *testing.T) {
	fx := newVoteFixture(t, fourEyes)
	alice := fx.open(t, "alice")
	id := fx.ag.Start("deploy staging")
	mt := fx.asking(t, id, 0)
	if o := vote(t, alice, mt, KindApprove, "ok"); o.Result != ResultAccepted {
		t.Fatalf("a staging approval: %s (%v)", o.Words(), o.Err)
	}
	if n := fx.ag.OnTask(id); n != 1 {
		t.Errorf("the agent received %d messages, want 1", n)
	}
}

// TestPolicyRefusals: an approval without the reason the policy wants,
// a voter outside its groups, and a reply around the vote are refused
// before anything is recorded.
func TestPolicyRefusals(t *testing.T) {
	pol := fourEyes
	pol.Approvers = []string{"release"}
	fx := newVoteFixture(t, pol)
	alice := fx.open(t, "alice")
	id := fx.ag.Start("deploy production")
	mt := fx.asking(t, id, 0)
	for _, c := range []struct {
		in   Input
		want error
	}{
		{Input{Kind: KindApprove, Reason: "ok"}, ErrNotApprover},
		{Input{Kind: KindReply, Text: "yes"}, ErrVoteNeeded},
	} {
		if _, err := alice.Prepare(alice.ItemFor(mt), c.in); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.in.Kind, err, c.want)
		}
	}
	fx.pol.Approvers = nil
	bob := fx.open(t, "bob")
	if _, err := bob.Prepare(bob.ItemFor(mt), Input{Kind: KindApprove}); !errors.Is(err, ErrApprovalReason) {
		t.Errorf("an approval without a reason: %v", err)
	}
	grouped, err := Open(Options{JournalPath: fx.path, Sender: fx.snd, Approver: "carol", Policies: map[string]Policy{"agent": pol},
		Groups: map[string][]string{"carol": {"release"}}, Agents: []Agent{{Name: "agent", URL: fx.ag.URL}}})
	if err != nil {
		t.Fatal(err)
	}
	defer grouped.Close()
	if _, err := grouped.Prepare(grouped.ItemFor(mt), Input{Kind: KindApprove, Reason: "ok"}); err != nil {
		t.Errorf("a member of release: %v", err)
	}
}

// TestRefusedApprovalIsVotedAgain: an approval the policy completed
// that the agent never took (here: it could not be asked) leaves the
// prompt open to a new round of votes, confirmed over it; the first
// round's votes do not count in it.
func TestRefusedApprovalIsVotedAgain(t *testing.T) {
	fx := newVoteFixture(t, fourEyes)
	alice, carol := fx.open(t, "alice"), fx.open(t, "carol")
	cut, err := Open(Options{JournalPath: fx.path, Sender: newSDKSender(), Approver: "bob", SendTimeout: 5 * time.Second, // knows no agent
		Agents: []Agent{{Name: "agent", URL: fx.ag.URL}}, Policies: map[string]Policy{"agent": fx.pol}, Now: fx.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer cut.Close()
	id := fx.ag.Start("deploy production")
	mt := fx.asking(t, id, 0)
	voted(t, alice, mt)
	o := vote(t, cut, mt, KindApprove, "ok")
	if o.Result != ResultRefused || o.Votes == nil || !o.Votes.Complete {
		t.Fatalf("bob's completing vote, unable to reach the agent: %s (%v)", o.Words(), o.Err)
	}
	if _, err := carol.Refresh(); err != nil {
		t.Fatal(err)
	}
	if _, err := carol.Prepare(carol.ItemFor(mt), Input{Kind: KindApprove, Reason: "ok"}); !errors.Is(err, ErrAlreadyDecided) {
		t.Errorf("a vote not confirmed over the refused approval: %v", err)
	}
	again := func(svc *Service) Outcome {
		t.Helper()
		if _, err := svc.Refresh(); err != nil {
			t.Fatal(err)
		}
		d, err := svc.Prepare(svc.ItemFor(mt), Input{Kind: KindApprove, Reason: "again", Again: true})
		if err != nil {
			t.Fatalf("%s votes again: %v", svc.Approver(), err)
		}
		return svc.Send(context.Background(), d)
	}
	if o := again(carol); o.Result != ResultVoted || o.Votes.Names() != "carol" {
		t.Fatalf("carol opens a new round: %s (%v) %+v", o.Words(), o.Err, o.Votes)
	}
	if o := again(alice); o.Result != ResultAccepted || o.Votes.Names() != "carol, alice" {
		t.Fatalf("alice completes it: %s (%v) %+v", o.Words(), o.Err, o.Votes)
	}
	if got := approversSent(t, fx.ag, id); len(got) != 1 || strings.Join(got[0], ",") != "carol,alice" {
		t.Errorf("the agent received %v", got)
	}
}

// TestVotesAreBounded: votes on prompts never decided are kept as the
// entries are, the newest within the memory bound.
func TestVotesAreBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	at := time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC)
	var recs []record
	for i := range 20 {
		recs = append(recs, record{Type: recVote, ID: fmt.Sprintf("v%02d", i), At: at.Add(time.Duration(i) * time.Minute), Agent: "agent",
			Task: a2a.TaskID(fmt.Sprintf("task-%02d", i)), Kind: KindApprove, Prompt: "p", Approver: "alice"})
	}
	appendRecords(t, path, recs...)
	svc, err := Open(Options{JournalPath: path, Memory: 8, ReadOnly: true, Policies: map[string]Policy{"agent": fourEyes}})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	svc.mu.Lock()
	defer svc.mu.Unlock()
	if n := len(svc.votes); n > 10 {
		t.Errorf("%d tasks' votes kept, want at most 10 (8 and a quarter)", n)
	}
	if svc.votes[taskRef{nameID("agent"), "task-19"}] == nil || svc.votes[taskRef{nameID("agent"), "task-00"}] != nil {
		t.Error("the oldest votes were kept, or the newest let go")
	}
}
