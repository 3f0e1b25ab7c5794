package hub_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/internal/agenttest"
	"a2atop/model"
)

// racePrompts is how many prompts TestHubsOnNATSRace races: the issue's
// 200 scaled down for a shared two-core machine; A2ATOP_RACE_PROMPTS
// sets another number.
func racePrompts() int {
	if n, err := strconv.Atoi(os.Getenv("A2ATOP_RACE_PROMPTS")); err == nil && n > 0 {
		return n
	}
	if raceEnabled {
		return 60 // the plain run races the 200; this one looks for data races
	}
	return 200
}

// raceBatch is how many prompts wait at once in a round of the race.
const raceBatch = 20

// TestHubsOnNATSRace: three hubs share one journal on a real three-node
// JetStream cluster; every prompt is decided at the same moment by an
// operator on each hub. The agent receives exactly one decision per
// prompt (counted at the agent), and every loser is refused with the
// winner's name.
func TestHubsOnNATSRace(t *testing.T) {
	c := startNATSCluster(t)
	ag := agenttest.StartAgent(t)
	fxs := teamOnNATS(t, c, ag)
	dashes := []*dash{fxs[0].attach("alice"), fxs[1].attach("dave"), fxs[2].attach("frank", asFrank)}
	raceRounds(t, ag, dashes, racePrompts())
}

// raceRounds races n prompts, raceBatch at a time, one decision from each
// dashboard on each prompt, all sent at once.
func raceRounds(t *testing.T, ag *agenttest.Agent, dashes []*dash, n int) {
	t.Helper()
	for done := 0; done < n; {
		batch := min(raceBatch, n-done)
		ids, outs := raceWhile(t, ag, dashes, batch, nil)
		for i, id := range ids {
			checkOneWon(t, done+i, dashes, outs[i])
			if got := ag.OnTask(id); got != 1 {
				t.Fatalf("prompt %d: the agent received %d decisions, want exactly 1", done+i, got)
			}
		}
		done += batch
	}
}

// checkOneWon checks that one outcome was accepted and that the others
// were refused naming its approver.
func checkOneWon(t *testing.T, prompt int, dashes []*dash, outs []approvals.Outcome) {
	t.Helper()
	checkWinner(t, prompt, dashes, outs, false)
}

// checkWinner is checkOneWon; with comingBack, a loser may also be
// refused because the record, coming back, did not take its append in
// time ("not sent: the team's record is unreachable": nothing sent).
func checkWinner(t *testing.T, prompt int, dashes []*dash, outs []approvals.Outcome, comingBack bool) {
	t.Helper()
	winner := ""
	for k, o := range outs {
		if o.Result == approvals.ResultAccepted {
			if winner != "" {
				t.Fatalf("prompt %d: two decisions accepted (%s and %s)", prompt, winner, dashes[k].me.Operator)
			}
			winner = dashes[k].me.Operator
		}
	}
	if winner == "" {
		t.Fatalf("prompt %d: no decision accepted: %s", prompt, words(outs))
	}
	for k, o := range outs {
		if o.Result == approvals.ResultAccepted || (comingBack && o.Problem == approvals.ProblemRecord) {
			continue
		}
		if o.Winner == nil || o.Winner.Approver != winner || !strings.HasPrefix(o.Words(), "decided by "+winner+" at ") {
			t.Fatalf("prompt %d: %s's refusal says %q (%v), want it to name %s", prompt, dashes[k].me.Operator, o.Words(), o.Err, winner)
		}
	}
}

func words(outs []approvals.Outcome) string {
	var w []string
	for _, o := range outs {
		s := o.Words()
		if o.Err != nil {
			s += " (" + o.Err.Error() + ")"
		}
		w = append(w, s)
	}
	return strings.Join(w, " / ")
}

// TestHubsOnNATSLeaderLost: the journal stream's leader stops while
// three hubs race on a batch of prompts. No prompt reaches the agent
// twice; every decision the agent received is in every hub's journal;
// every refusal is a winner's name or the record's loss in words. The
// node comes back and the next race is as before.
func TestHubsOnNATSLeaderLost(t *testing.T) {
	c := startNATSCluster(t)
	ag := agenttest.StartAgent(t)
	fxs := teamOnNATS(t, c, ag)
	dashes := []*dash{fxs[0].attach("alice"), fxs[1].attach("dave"), fxs[2].attach("frank", asFrank)}
	raceRounds(t, ag, dashes, 5) // the stream and its leader exist
	leader := c.leader()
	if leader < 0 {
		t.Fatal("no node leads the journal's stream")
	}
	ids, outs := raceWhile(t, ag, dashes, raceBatch, func() { c.stop(leader) })
	for i, id := range ids {
		got := ag.OnTask(id)
		if got > 1 {
			t.Fatalf("prompt %d: the agent received %d decisions, want at most 1", i, got)
		}
		for k, o := range outs[i] {
			switch {
			case o.Result == approvals.ResultAccepted, o.Winner != nil, o.Problem == approvals.ProblemRecord:
			case o.Result.Open(): // sent, the outcome not recorded yet: Reconcile settles it
			default:
				t.Fatalf("prompt %d: %s's outcome is %q (%v)", i, dashes[k].me.Operator, o.Words(), o.Err)
			}
		}
		if got == 1 {
			for _, fx := range fxs {
				fx.waitJournal(t, id)
			}
		}
	}
	c.start(leader)
	raceRounds(t, ag, dashes, raceBatch)
}

// TestHubsOnNATSNoMajority: with two of the three nodes stopped no
// decision is sent: each is refused in words, the agent receives
// nothing. Once they are back the hubs recover by themselves: the same
// prompts are decided, once each.
func TestHubsOnNATSNoMajority(t *testing.T) {
	c := startNATSCluster(t)
	ag := agenttest.StartAgent(t)
	fxs := teamOnNATS(t, c, ag)
	dashes := []*dash{fxs[0].attach("alice"), fxs[1].attach("dave"), fxs[2].attach("frank", asFrank)}
	raceRounds(t, ag, dashes, 2)
	c.stop(0)
	c.stop(1)
	ids, outs := raceWhile(t, ag, dashes, 4, nil)
	for i, id := range ids {
		for k, o := range outs[i] {
			if o.Problem != approvals.ProblemRecord || !strings.HasPrefix(o.Words(), "not sent: the team's record is unreachable") {
				t.Fatalf("prompt %d: %s's outcome is %q (%v), want it refused: the record is unreachable", i, dashes[k].me.Operator, o.Words(), o.Err)
			}
		}
		if got := ag.OnTask(id); got != 0 {
			t.Fatalf("prompt %d: the agent received %d decisions with no majority, want none", i, got)
		}
	}
	c.start(0)
	c.start(1)
	for i, id := range ids {
		decideOnceRecovered(t, fxs, dashes, i, id)
		if got := ag.OnTask(id); got != 1 {
			t.Fatalf("prompt %d: the agent received %d decisions after the recovery, want 1", i, got)
		}
	}
}

// decideOnceRecovered races the dashboards on a prompt until one
// decision is accepted, waiting before each round until no decision on
// it is open anywhere (a decision refused while the record was out of
// reach, that the store took later, is settled as not sent). A round
// may still meet the record coming back: all refused, nothing sent, or
// one accepted and another refused as the record unreachable (its append
// timed out on a loaded machine; seen twice in the whole hub suite).
func decideOnceRecovered(t *testing.T, fxs []*fixture, dashes []*dash, i int, id a2a.TaskID) {
	t.Helper()
	for range 40 {
		for _, fx := range fxs {
			waitSettled(t, fx.h.Service(), id)
		}
		for _, d := range dashes {
			waitSettled(t, d.svc, id)
		}
		outs := make([]approvals.Outcome, len(dashes))
		var wg sync.WaitGroup
		for k, d := range dashes {
			wg.Add(1)
			go func() { defer wg.Done(); outs[k] = d.decideAgain(id) }()
		}
		wg.Wait()
		for _, o := range outs {
			if o.Result == approvals.ResultAccepted {
				checkWinner(t, i, dashes, outs, true)
				return
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("prompt %d: no decision was accepted after the record came back", i)
}

// raceWhile starts n prompts and races a decision from each dashboard
// on each; during sends it calls during (nil: nothing).
func raceWhile(t *testing.T, ag *agenttest.Agent, dashes []*dash, n int, during func()) ([]a2a.TaskID, [][]approvals.Outcome) {
	t.Helper()
	ids := make([]a2a.TaskID, n)
	for i := range ids {
		ids[i] = ag.Start("deploy")
	}
	inboxesHold("the deploy reaches the inbox", dashes, ids...)
	outs := make([][]approvals.Outcome, n)
	decs := make([][]*approvals.Decision, n)
	for i, id := range ids {
		outs[i], decs[i] = make([]approvals.Outcome, len(dashes)), make([]*approvals.Decision, len(dashes))
		for k, d := range dashes {
			decs[i][k] = d.prepare(id, approvals.Input{Kind: approvals.KindApprove})
		}
	}
	atOnce(n*len(dashes), func(j int) {
		i, k := j/len(dashes), j%len(dashes)
		outs[i][k] = dashes[k].svc.Send(context.Background(), decs[i][k])
	}, during)
	return ids, outs
}

// decideAgain decides on the task as the inbox does after a refused
// decision: confirmed again over the last one.
func (d *dash) decideAgain(id a2a.TaskID) approvals.Outcome {
	var dec *approvals.Decision
	var err error
	d.read(func(f *model.Fleet) {
		it, ok := d.svc.ItemOf(f, model.TaskKey{Agent: "agent", ID: id})
		if !ok {
			err = errNoTask
			return
		}
		_, again := d.svc.Prior("agent", id, approvals.PromptOf(it.Task.Snapshot))
		dec, err = d.svc.Prepare(it, approvals.Input{Kind: approvals.KindApprove, Again: again})
	})
	if err != nil {
		return approvals.Outcome{Result: approvals.ResultRefused, Err: err}
	}
	return d.svc.Send(context.Background(), dec)
}

// waitJournal waits until the hub's journal holds a decision on the task.
func (fx *fixture) waitJournal(t *testing.T, id a2a.TaskID) {
	t.Helper()
	for range 600 {
		_, _ = fx.h.Service().Refresh()
		for _, e := range fx.h.Service().Journal() {
			if e.TaskID == id && e.MessageID != "" {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the hub's journal never held the decision the agent received on %s", id)
}

// waitSettled waits until no decision on the task is open in the
// journal of svc (a hub's or a dashboard's).
func waitSettled(t *testing.T, svc *approvals.Service, id a2a.TaskID) {
	t.Helper()
	for range 600 {
		_, _ = svc.Refresh()
		open := false
		for _, e := range svc.Journal() {
			open = open || e.TaskID == id && e.MessageID != "" && e.Result.Open()
		}
		if !open {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("a decision on %s stayed open in a journal after the record came back", id)
}
