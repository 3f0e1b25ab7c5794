package hub_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/approvals/jetstore"
	"a2atop/hub"
	"a2atop/internal/agenttest"
	"a2atop/model"
)

// TestHubLostMidSends: hub 1 loses its record and stops while its
// decisions have reached the agent and their answers have not come back
// (the agent holds them): their outcomes are never recorded, as when a
// hub is killed. The other hubs find them pending in the shared journal
// and settle them with GetTask (accepted: the agent holds each
// messageId), never by sending again: each prompt got one message, none
// is lost from the journal, and a second decision on it is refused
// naming the first.
func TestHubLostMidSends(t *testing.T) {
	c := startNATSCluster(t)
	ag := agenttest.StartAgent(t)
	var stores []*jetstore.Store
	fxs := teamOnNATS(t, c, ag, func(st *jetstore.Store, o *hub.Options) {
		stores = append(stores, st)
		// The hubs share this process, so hub 2 takes hub 1's pending
		// decisions for a dead process's at once (same pid) instead of
		// waiting out its send window: its own reconciler, reading the
		// task while the agent still held the message, could settle one
		// "not delivered". The test reconciles once the hold is released.
		o.ReconcileEvery = time.Hour
	})
	alice, dave := fxs[0].attach("alice"), fxs[1].attach("dave")
	const n = 10
	ids := raceStart(t, ag, []*dash{alice, dave}, n)
	ag.SetHold(true)
	decs := make([]*approvals.Decision, n)
	var sent sync.WaitGroup
	for i, id := range ids {
		decs[i] = alice.prepare(id, approvals.Input{Kind: approvals.KindApprove})
		sent.Add(1)
		go func() { defer sent.Done(); alice.svc.Send(context.Background(), decs[i]) }()
	}
	for end := time.Now().Add(60 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		got := 0
		for _, id := range ids {
			got += ag.OnTask(id)
		}
		if got == n {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the agent received %d of the %d decisions", got, n)
		}
	}
	_ = stores[0].Close() // the hub's record is gone: no outcome can be recorded
	fxs[0].stop()
	sent.Wait()
	ag.SetHold(false)
	svc := fxs[1].h.Service()
	for i, d := range decs {
		for end := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			_, _ = svc.Refresh()
			svc.ReconcileAbandoned(context.Background())
			e, ok := svc.Entry(d.MessageID)
			if ok && !e.Result.Open() {
				if e.Result != approvals.ResultAccepted {
					t.Fatalf("decision %d settled %s (%s), want accepted: the agent holds it", i, e.Result, e.Words())
				}
				break
			}
			if time.Now().After(end) {
				t.Fatalf("decision %d is not settled on hub 2 (in the journal: %v)", i, ok)
			}
		}
		if got := ag.OnTask(ids[i]); got != 1 {
			t.Fatalf("prompt %d: the agent received %d messages, want 1", i, got)
		}
	}
	for i, id := range ids {
		if dave.waiting(id) {
			t.Fatalf("prompt %d still waits on dave's dashboard", i)
		}
	}
}

// raceStart starts n prompts and waits until each is in every
// dashboard's inbox.
func raceStart(t *testing.T, ag *agenttest.Agent, dashes []*dash, n int) []a2a.TaskID {
	t.Helper()
	ids := make([]a2a.TaskID, n)
	for i := range ids {
		ids[i] = ag.Start("deploy")
	}
	for _, d := range dashes {
		for _, id := range ids {
			d.waitFor("the deploy reaches the inbox", func(f *model.Fleet) bool { return d.inInbox(f, id) })
		}
	}
	return ids
}

// TestHubsOnNATSRestartEveryHub: every hub stops and three new ones
// start on the same cluster: each reads the whole journal back from the
// stream (the decisions, their outcomes), and the next race is exact.
func TestHubsOnNATSRestartEveryHub(t *testing.T) {
	c := startNATSCluster(t)
	ag := agenttest.StartAgent(t)
	first := teamOnNATS(t, c, ag)
	raceRounds(t, ag, []*dash{first[0].attach("alice"), first[1].attach("dave"), first[2].attach("frank", asFrank)}, 5)
	var decided []approvals.Entry
	for _, e := range first[0].h.Service().Journal() {
		if e.MessageID != "" {
			decided = append(decided, e)
		}
	}
	if len(decided) != 5 {
		t.Fatalf("the journal holds %d decisions, want the 5 winners (a loser is never journaled)", len(decided))
	}
	for _, fx := range first {
		fx.stop()
	}
	again := teamOnNATS(t, c, ag)
	for k, fx := range again {
		for _, e := range decided {
			got, ok := fx.h.Service().Entry(e.MessageID)
			if !ok || got.Result != e.Result || got.Approver != e.Approver {
				t.Fatalf("restarted hub %d: decision %s is %v %s by %s, want %s by %s", k+1, e.MessageID, ok, got.Result, got.Approver, e.Result, e.Approver)
			}
		}
	}
	raceRounds(t, ag, []*dash{again[0].attach("alice"), again[1].attach("dave"), again[2].attach("frank", asFrank)}, 5)
}
