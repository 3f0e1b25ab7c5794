package hub_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/approvals/jetstore"
	"a2atop/hub"
	"a2atop/hubclient"
	"a2atop/internal/agenttest"
	"a2atop/model"
)

// TestDashboardMovesToAHubThatHasNotReadItsLines: two hubs share one
// journal on a real three-node JetStream cluster; the second reaches
// the cluster through a proxy that the test cuts. Alice's dashboard, on
// the first hub, follows lines the second cannot read; then the first
// hub stops and her dashboard moves to the second while it is still cut
// from the record. The second hub must not answer it from line 0 (the
// dashboard would take it for a hub on another journal and send nothing
// until restarted): it asks the dashboard to come back, which shows the
// hub as reconnecting. Once the record is back the dashboard follows the
// second hub, its answers go through, and every question received
// exactly one message.
func TestDashboardMovesToAHubThatHasNotReadItsLines(t *testing.T) {
	c := startNATSCluster(t)
	ag := agenttest.StartAgent(t)
	_, j1 := c.shared(t, "hub1")
	proxy := startProxy(t, c.opts[0].ClientListen)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st2, err := jetstore.Open(ctx, jetstore.Config{URLs: []string{proxy.url()}, Token: natsToken, Replicas: 3, Name: "hub2"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st2.Close() })
	j2, err := st2.Journal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	first := newFixtureOn(t, ag, 100*time.Millisecond, func(o *hub.Options) { o.Journal.Shared = j1 })
	second := newFixtureOn(t, ag, 100*time.Millisecond, func(o *hub.Options) { o.Journal.Shared = j2 })
	alice := first.attach("alice", func(o *hubclient.Options) { o.Others = []string{second.srv.URL} })

	answer := func(d *dash, id a2a.TaskID, text string) {
		t.Helper()
		d.waitFor("the question "+text, func(f *model.Fleet) bool { return d.inInbox(f, id) })
		var o approvals.Outcome
		for range 300 { // the feed may be up a moment after the question shows
			if o = d.svc.Send(context.Background(), d.prepare(id, approvals.Input{Kind: approvals.KindReply, Text: text})); o.Problem != approvals.ProblemHub {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if o.Result != approvals.ResultAccepted {
			t.Fatalf("answering %q through %s: %s (%v)", text, d.cl.URL(), o.Words(), o.Err)
		}
	}
	one := ag.Start("ask")
	answer(alice, one, "one")
	second.waitJournal(t, one) // the second hub holds the lines up to here

	proxy.setCut(true)
	two := ag.Start("ask")
	answer(alice, two, "two") // lines the second hub cannot read
	followed, hash := alice.svc.Followed()
	first.stop()

	// The second hub cannot read the record to its end: the dashboard is
	// asked to come back, and is shown reconnecting, not diverged.
	waitCond(t, "the dashboard reaches the second hub", func() bool {
		l := second.log.String()
		return strings.Contains(l, "is asked to come back") || strings.Contains(l, "feed: connected")
	}, func() string { return tail(second.log.String(), 20) })
	if up, why := alice.cl.Connected(); up {
		t.Errorf("while the second hub catches up the dashboard shows the feed connected (%s)", why)
	}
	if n, h := alice.svc.Followed(); n != followed || h != hash {
		t.Errorf("the dashboard's journal went from line %d to %d while the hub caught up", followed, n)
	}

	proxy.setCut(false)
	three := ag.Start("ask")
	answer(alice, three, "three")
	if got := alice.cl.URL(); got != second.srv.URL {
		t.Fatalf("the dashboard uses %s, want the second hub %s", got, second.srv.URL)
	}
	for _, id := range []a2a.TaskID{one, two, three} {
		if n := ag.OnTask(id); n != 1 {
			t.Errorf("task %s received %d messages, want 1", id, n)
		}
	}
	mine := map[string]int{}
	for _, e := range alice.svc.Journal() {
		if !e.Observed() && e.Approver == "alice" && e.Result == approvals.ResultAccepted {
			mine[string(e.TaskID)]++
		}
	}
	for _, id := range []a2a.TaskID{one, two, three} {
		if mine[string(id)] != 1 {
			t.Errorf("alice's journal holds %d accepted decisions on %s, want 1", mine[string(id)], id)
		}
	}
}
