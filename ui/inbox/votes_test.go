package inbox

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"a2atop/approvals"
	"a2atop/model"
	"a2atop/ui/common"
	"a2atop/ui/internal/uitest"
)

// twoOnDeployer is the policy of the votes screens: two approvals that
// say why, on the deployer.
var twoOnDeployer = approvals.Policy{Required: 2, RequireReason: true}

// newVoteFixture is the inbox fixture with twoOnDeployer, and alice's
// vote on the first deploy journaled by another process (her own
// Service on the same journal) at 20:02 with a reason. The clock's
// zone is UTC, so the screens read the same everywhere.
func newVoteFixture(t *testing.T) *fixture {
	t.Helper()
	fx := newFixture(t, false)
	path := fx.svc.Path()
	fx.svc.Close()
	n := 0
	open := func(approver string) *approvals.Service {
		svc, err := approvals.Open(approvals.Options{JournalPath: path, Sender: fx.snd, Approver: approver, Now: fx.clk.Now,
			QuietPeriod: 500 * time.Millisecond, Policies: map[string]approvals.Policy{"deployer": twoOnDeployer},
			NewID: func() string { n++; return fmt.Sprintf("vote-%04d", n) }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { svc.Close() })
		return svc
	}
	alice := open("alice@host")
	fx.clk.add(2 * time.Minute)
	it := alice.ItemFor(fx.fleet.Task(model.TaskKey{Agent: "deployer", ID: idDeploy}))
	d, err := alice.Prepare(it, approvals.Input{Kind: approvals.KindApprove, Reason: "rollout window ok"})
	if err != nil {
		t.Fatal(err)
	}
	if o := alice.Send(t.Context(), d); o.Result != approvals.ResultVoted {
		t.Fatalf("alice's vote: %s (%v)", o.Words(), o.Err)
	}
	fx.clk.add(time.Minute)
	fx.svc = open("ops@host")
	return fx
}

var voteScreens = []struct {
	name string
	keys []string // "+" advances the clock one second
	wait string
}{
	{"votes_row", []string{"j"}, "alice@host approved 20:02"},
	{"votes_reason", []string{"j", "a"}, "Approve: say why"},
	{"votes_complete", []string{"j", "a", "o", "k", "enter", "+"}, "y: send"},
	{"votes_first", []string{"j", "j", "j", "a", "o", "k", "enter", "+"}, "y: vote"},
}

// TestVoteGolden draws the inbox under an approval policy: the row and
// the selected task's votes, the reason an approve asks for, and the
// confirmation of a vote that completes the policy and of one that does
// not (go test -update rewrites).
func TestVoteGolden(t *testing.T) {
	for _, sc := range voteScreens {
		for _, sz := range goldenSizes {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, sz[0], sz[1]), func(t *testing.T) {
				fx := newVoteFixture(t)
				h := &harness{c: NewInbox(fx.ctx, fx.svc, Options{Sort: model.SortAge}), clk: fx.clk}
				tm := teatest.NewTestModel(t, h, teatest.WithInitialTermSize(sz[0], sz[1]))
				for _, k := range sc.keys {
					if k == "+" {
						tm.Send(advanceMsg{})
						continue
					}
					tm.Send(uitest.Key(k))
				}
				golden.RequireEqual(t, []byte(uitest.Frame(t, tm, sc.wait, sz[0], sz[1], false)))
			})
		}
	}
}

// press sends keys to the inbox.
func press(c common.Component, keys ...string) common.Component {
	for _, k := range keys {
		c, _ = c.Update(uitest.Key(k))
	}
	return c
}

// TestVoteWords: the row and the confirmation say where the votes stand
// and what a vote does; a vote that does not complete sends nothing and
// says so; the same person cannot vote again (refused in words).
func TestVoteWords(t *testing.T) {
	fx := newVoteFixture(t)
	in := NewInbox(fx.ctx, fx.svc, Options{Sort: model.SortAge})
	in.SetSize(160, 40)
	if v := in.View(); !strings.Contains(v, `[1 of 2 · alice@host 20:02 "rollout window ok"]`) {
		t.Fatalf("the deployer's row does not show the vote:\n%s", v)
	}
	// The second deploy: ops@host's vote is the first of two.
	c := press(in, "j", "j", "j", "a")
	c = typeText(c, "looks fine")
	c, _ = c.Update(uitest.Key("enter"))
	fx.clk.add(time.Second)
	if v := c.View(); !strings.Contains(v, "your vote is 1 of 2: nothing is sent yet") || !strings.Contains(v, "sends, once the votes are complete:") {
		t.Fatalf("the confirmation of a first vote:\n%s", v)
	}
	c, cmd := c.Update(uitest.Key("y"))
	for _, msg := range uitest.Run(cmd) {
		c, _ = c.Update(msg)
	}
	if said := fx.said(); !strings.Contains(said, "your vote is 1 of 2: nothing is sent yet") {
		t.Errorf("the notice after the first vote: %q", said)
	}
	if n := fx.snd.sent; len(n) != 0 {
		t.Errorf("a vote of two sent %d messages", len(n))
	}
	// Again: refused in words, nothing opens.
	c, _ = c.Update(uitest.Key("a"))
	if said := fx.said(); !strings.Contains(said, "you voted on this prompt already: a person's vote counts once (you approved at 20:03:01); the others' votes decide the rest; nothing was sent") {
		t.Errorf("a second vote of the same person: %q", said)
	}
	if v := c.View(); strings.Contains(v, "Approve: say why") {
		t.Error("a second vote opened the reason")
	}
}

// TestVoteDroppedWhenPromptChanges: the agent asks again while votes are
// open: the row and the task's votes say the earlier votes were dropped.
func TestVoteDroppedWhenPromptChanges(t *testing.T) {
	fx := newVoteFixture(t)
	again := snap(idDeploy, a2a.TaskStateAuthRequired, 0, []*a2a.Part{a2a.NewTextPart("approve deploy of 9f3c2e2 to staging?")})
	at := fx.clk.Now()
	again.Status.Timestamp = &at
	fx.fleet.Apply([]model.Event{{Kind: model.EventTask, Agent: "deployer", Source: model.SourceSweep, At: at, Task: again}})
	in := NewInbox(fx.ctx, fx.svc, Options{Sort: model.SortAge})
	in.SetSize(160, 40)
	c := press(in, "j")
	v := c.View()
	if !strings.Contains(v, "[0 of 2 · the prompt changed: 1 earlier vote dropped]") ||
		!strings.Contains(v, "the prompt changed while votes were open: 1 vote for the earlier question was dropped") {
		t.Errorf("after the prompt changed:\n%s", v)
	}
}

// TestVoteConfirmationFollowsTheJournal: while ops@host's confirmation
// of the first vote is open, carol votes from another process: the
// dialog then says ops@host's vote completes the approval and will be
// sent, naming carol.
func TestVoteConfirmationFollowsTheJournal(t *testing.T) {
	fx := newVoteFixture(t)
	in := NewInbox(fx.ctx, fx.svc, Options{Sort: model.SortAge})
	in.SetSize(160, 40)
	c := press(in, "j", "j", "j", "a")
	c = typeText(c, "looks fine")
	c, _ = c.Update(uitest.Key("enter"))
	if v := c.View(); !strings.Contains(v, "your vote is 1 of 2: nothing is sent yet") {
		t.Fatalf("before carol's vote:\n%s", v)
	}
	carol, err := approvals.Open(approvals.Options{JournalPath: fx.svc.Path(), Sender: fx.snd, Approver: "carol@host", Now: fx.clk.Now,
		Policies: map[string]approvals.Policy{"deployer": twoOnDeployer}, NewID: func() string { return "carol-0001" }})
	if err != nil {
		t.Fatal(err)
	}
	defer carol.Close()
	d, err := carol.Prepare(carol.ItemFor(fx.fleet.Task(model.TaskKey{Agent: "deployer", ID: idOther})), approvals.Input{Kind: approvals.KindApprove, Reason: "ok"})
	if err != nil {
		t.Fatal(err)
	}
	if o := carol.Send(t.Context(), d); o.Result != approvals.ResultVoted {
		t.Fatalf("carol: %s (%v)", o.Words(), o.Err)
	}
	if _, err := fx.svc.Refresh(); err != nil {
		t.Fatal(err)
	}
	fx.clk.add(time.Second) // armed
	if v := c.View(); !strings.Contains(v, "your vote completes the approval: it will be sent (with carol@host 20:03)") || !strings.Contains(v, "y: send") {
		t.Errorf("after carol's vote:\n%s", v)
	}
}

// TestBatchApprovalVotes: approving the marked tasks under a policy
// asks the one reason first (refusing none where the policy wants one),
// and the batch's confirmation carries it in each vote.
func TestBatchApprovalVotes(t *testing.T) {
	fx := newVoteFixture(t)
	in := NewInbox(fx.ctx, fx.svc, Options{Sort: model.SortAge})
	in.SetSize(160, 40)
	c := press(in, "*", "a")
	if v := c.View(); !strings.Contains(v, "Approve: say why") {
		t.Fatalf("approving the marked tasks under a policy:\n%s", v)
	}
	c, _ = c.Update(uitest.Key("enter"))
	if v := c.View(); !strings.Contains(v, "this agent's approvals must say why") {
		t.Errorf("without a reason:\n%s", v)
	}
	c = typeText(c, "release train")
	c, _ = c.Update(uitest.Key("enter"))
	if v := c.View(); !strings.Contains(v, "Approve these 2 requests?") || !strings.Contains(v, `"reason": "release train"`) ||
		!strings.Contains(v, "23cf3710 auth-required  [vote completes: sent] approve deploy of 9f3c2e1") ||
		!strings.Contains(v, "c0ffee00 auth-required  [vote 1 of 2: not sent yet] approve deploy of deadbee") {
		t.Errorf("the batch's confirmation:\n%s", v)
	}
}

// TestVoteOutsideTheGroups: an approver outside the policy's groups is
// told so when they press approve; no reason is asked.
func TestVoteOutsideTheGroups(t *testing.T) {
	fx := newFixture(t, false)
	path := fx.svc.Path()
	fx.svc.Close()
	svc, err := approvals.Open(approvals.Options{JournalPath: path, Sender: fx.snd, Approver: "ops@host", Now: fx.clk.Now,
		Policies: map[string]approvals.Policy{"deployer": {Required: 2, Approvers: []string{"release"}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	in := NewInbox(fx.ctx, svc, Options{Sort: model.SortAge})
	in.SetSize(160, 40)
	c := press(in, "j", "a")
	if said := fx.said(); !strings.Contains(said, "you are not in a group that may vote on this agent's approvals (ops@host: only release may vote") {
		t.Errorf("outside the groups: %q", said)
	}
	if v := c.View(); strings.Contains(v, "Approve: say why") {
		t.Error("the reason opened for an approver outside the groups")
	}
}
