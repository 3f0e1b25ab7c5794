package hub_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

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
		ids := make([]a2a.TaskID, batch)
		for i := range ids {
			ids[i] = ag.Start("deploy")
		}
		for _, d := range dashes {
			for _, id := range ids {
				d.waitFor("the deploy reaches the inbox", func(f *model.Fleet) bool { return d.inInbox(f, id) })
			}
		}
		outs := make([][]approvals.Outcome, batch)
		var start, sent sync.WaitGroup
		start.Add(1)
		for i, id := range ids {
			outs[i] = make([]approvals.Outcome, len(dashes))
			for k, d := range dashes {
				dec := d.prepare(id, approvals.Input{Kind: approvals.KindApprove})
				sent.Add(1)
				go func() {
					defer sent.Done()
					start.Wait()
					outs[i][k] = d.svc.Send(context.Background(), dec)
				}()
			}
		}
		start.Done()
		sent.Wait()
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
		if o.Result == approvals.ResultAccepted {
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
