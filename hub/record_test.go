package hub_test

import (
	"strings"
	"testing"
	"time"

	"a2atop/hubclient"
	"a2atop/internal/agenttest"
)

// waitRecord waits until the client says the hub can (or cannot) reach
// the team's record, and says how long that took.
func waitRecord(t *testing.T, who string, cl *hubclient.Client, reachable bool) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := start.Add(60 * time.Second)
	for {
		ch := cl.Changed()
		if ok, _, _ := cl.RecordReachable(); ok == reachable {
			return time.Since(start)
		}
		if time.Now().After(deadline) {
			ok, since, why := cl.RecordReachable()
			t.Fatalf("%s: after 60s the client says the record is reachable %v (since %s: %q), want %v", who, ok, since, why, reachable)
		}
		select {
		case <-ch:
		case <-time.After(time.Second):
		}
	}
}

// TestDashboardsAreToldTheRecordIsLost: three hubs on a real three-node
// JetStream record, a real client attached to two of them. With two of
// the three servers stopped (no majority) each client says the hub
// cannot reach the team's record, since when and why; a client that
// subscribes meanwhile is told in its snapshot; with the servers back,
// every client says the record is back, by itself. The dashboards used
// to be told nothing: only a decision refused said it.
func TestDashboardsAreToldTheRecordIsLost(t *testing.T) {
	c := startNATSCluster(t)
	fxs := teamOnNATS(t, c, agenttest.StartAgent(t))
	alice, dave := fxs[0].attach("alice"), fxs[1].attach("dave")
	for _, d := range []*dash{alice, dave} {
		synced(t, d)
		if ok, since, why := d.cl.RecordReachable(); !ok {
			t.Fatalf("%s on a reachable record: the client says it is lost since %s: %q", d.me.Operator, since, why)
		}
	}
	stopped := time.Now()
	c.stop(0)
	c.stop(1)
	for _, d := range []*dash{alice, dave} {
		took := waitRecord(t, d.me.Operator, d.cl, false)
		_, since, why := d.cl.RecordReachable()
		t.Logf("%s told the record is lost %s after the servers stopped: since %s: %s", d.me.Operator, took, since.Format(time.TimeOnly), why)
		if since.Before(stopped.Add(-time.Second)) || why == "" {
			t.Errorf("%s: the record lost since %s (the servers stopped at %s), why %q: want when and why", d.me.Operator, since, stopped, why)
		}
		if strings.HasPrefix(why, "not sent") || strings.HasPrefix(why, "nats://") {
			t.Errorf("%s: the why %q says again what the banner says, or puts the servers before the cause", d.me.Operator, why)
		}
	}
	frank := fxs[0].attach("frank", asFrank)
	synced(t, frank)
	if ok, _, _ := frank.cl.RecordReachable(); ok {
		t.Errorf("frank subscribed while the record was lost: his snapshot did not say so")
	}
	c.start(0)
	c.start(1)
	for _, d := range []*dash{alice, dave, frank} {
		took := waitRecord(t, d.me.Operator, d.cl, true)
		t.Logf("%s told the record is back %s after the servers started", d.me.Operator, took)
	}
}

// synced waits for the client's first snapshot.
func synced(t *testing.T, d *dash) {
	t.Helper()
	select {
	case <-d.cl.Synced():
	case <-time.After(60 * time.Second):
		t.Fatalf("%s: the hub's snapshot never came", d.me.Operator)
	}
}
