package hub_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"a2atop/approvals"
	"a2atop/internal/agenttest"
	"a2atop/model"
)

// TestDecisionLatencyFigures measures one decision through the hub (a
// dashboard's Send: the hub's checks, the journal's records, GetTask and
// the reply to a real agent) on the file journal and on a journal of
// three replicas in a real three-node JetStream cluster, and logs p50
// and p99 for BENCHMARKS.md. It asserts no time (the figures are the
// machine's); each decision must be accepted. It runs only with
// A2ATOP_FIGURES=1: go test -run TestDecisionLatencyFigures -v ./hub/
func TestDecisionLatencyFigures(t *testing.T) {
	if os.Getenv("A2ATOP_FIGURES") != "1" {
		t.Skip("figures for BENCHMARKS.md: set A2ATOP_FIGURES=1")
	}
	const n = 200
	ag := agenttest.StartAgent(t)
	file := newFixtureOn(t, ag, 100*time.Millisecond)
	p50, p99 := decisionLatency(t, ag, file.attach("alice"), n)
	t.Logf("file journal: %d decisions through the hub: p50 %s p99 %s", n, p50, p99)

	c := startNATSCluster(t)
	ag2 := agenttest.StartAgent(t)
	fxs := teamOnNATS(t, c, ag2)
	p50, p99 = decisionLatency(t, ag2, fxs[0].attach("alice"), n)
	t.Logf("JetStream, 3 replicas (3 nodes, 3 hubs): %d decisions through the hub: p50 %s p99 %s", n, p50, p99)
}

// decisionLatency times n decisions of one dashboard, one at a time.
func decisionLatency(t *testing.T, ag *agenttest.Agent, d *dash, n int) (p50, p99 time.Duration) {
	t.Helper()
	var took []time.Duration
	for range n {
		id := ag.Start("deploy")
		d.waitFor("the deploy", func(f *model.Fleet) bool { return d.inInbox(f, id) })
		dec := d.prepare(id, approvals.Input{Kind: approvals.KindApprove})
		start := time.Now()
		o := d.svc.Send(context.Background(), dec)
		took = append(took, time.Since(start))
		if o.Result != approvals.ResultAccepted {
			t.Fatalf("a decision was not accepted: %s (%v)", o.Words(), o.Err)
		}
	}
	slices.Sort(took)
	return took[len(took)/2].Round(10 * time.Microsecond), took[len(took)*99/100].Round(10 * time.Microsecond)
}

// TestOtherHubSeesFigures measures how long a decision taken on one hub
// takes to be in another hub's journal (and so on its dashboards'
// feeds), p50/p99 over 100 decisions, for BENCHMARKS.md. It asserts no
// time; each decision must arrive. A2ATOP_FIGURES=1 only.
func TestOtherHubSeesFigures(t *testing.T) {
	if os.Getenv("A2ATOP_FIGURES") != "1" {
		t.Skip("figures for BENCHMARKS.md: set A2ATOP_FIGURES=1")
	}
	c := startNATSCluster(t)
	ag := agenttest.StartAgent(t)
	fxs := teamOnNATS(t, c, ag)
	d := fxs[0].attach("alice")
	var took []time.Duration
	for range 100 {
		id := ag.Start("deploy")
		d.waitFor("the deploy", func(f *model.Fleet) bool { return d.inInbox(f, id) })
		dec := d.prepare(id, approvals.Input{Kind: approvals.KindApprove})
		if o := d.svc.Send(context.Background(), dec); o.Result != approvals.ResultAccepted {
			t.Fatalf("not accepted: %s", o.Words())
		}
		start := time.Now()
		for {
			if _, ok := fxs[1].h.Service().Entry(dec.MessageID); ok {
				break
			}
			if time.Since(start) > 30*time.Second {
				t.Fatal("the other hub never had the decision")
			}
			time.Sleep(500 * time.Microsecond)
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	t.Logf("a decision on hub 1 in hub 2's journal after: p50 %s p99 %s (100 decisions)", took[50].Round(10*time.Microsecond), took[98].Round(10*time.Microsecond))
}
