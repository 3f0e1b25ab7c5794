package hub_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/hub"
	"a2atop/hubclient"
	"a2atop/model"
)

// TestDashboardMovesToAnotherHubOfTheTeam: two real hubs share one
// journal file and watch one agent; alice's dashboard knows both. When
// the hub it uses goes away it is on the other at once: the next
// question reaches its inbox and its answer goes through the other hub,
// the journal it follows continues (no divergence), and each question
// received exactly one message.
func TestDashboardMovesToAnotherHubOfTheTeam(t *testing.T) {
	first := newFixture(t)
	second := newFixtureOn(t, first.ag, 100*time.Millisecond, func(o *hub.Options) { o.Journal.JournalPath = first.journal })
	movesToTheOtherHub(t, first, second)
}

// movesToTheOtherHub attaches alice's dashboard to first, knowing
// second, and checks that it moves to second when first stops (see
// TestDashboardMovesToAnotherHubOfTheTeam).
func movesToTheOtherHub(t *testing.T, first, second *fixture) {
	t.Helper()
	alice := first.attach("alice", func(o *hubclient.Options) { o.Others = []string{second.srv.URL} })

	before := first.ag.Start("ask")
	alice.waitFor("the first question", func(f *model.Fleet) bool { return alice.inInbox(f, before) })
	if o := alice.svc.Send(context.Background(), alice.prepare(before, approvals.Input{Kind: approvals.KindReply, Text: "one"})); o.Result != approvals.ResultAccepted {
		t.Fatalf("through the first hub: %s", o.Words())
	}
	first.stop()

	after := first.ag.Start("ask")
	alice.waitFor("the second question, from the other hub", func(f *model.Fleet) bool { return alice.inInbox(f, after) })
	if got := alice.cl.URL(); got != second.srv.URL {
		t.Fatalf("the dashboard uses %s, want the other hub %s", got, second.srv.URL)
	}
	var o approvals.Outcome
	for range 200 { // the feed is up; the first send may still see it down for a moment
		if o = alice.svc.Send(context.Background(), alice.prepare(after, approvals.Input{Kind: approvals.KindReply, Text: "two"})); o.Problem != approvals.ProblemHub {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if o.Result != approvals.ResultAccepted {
		t.Fatalf("through the other hub: %s (%v)", o.Words(), o.Err)
	}
	for _, id := range []a2a.TaskID{before, after} {
		if n := first.ag.OnTask(id); n != 1 {
			t.Errorf("task %s received %d messages, want 1", id, n)
		}
	}
	decided := 0
	for _, e := range alice.svc.Journal() {
		if !e.Observed() && e.Approver == "alice" && e.Result == approvals.ResultAccepted {
			decided++
		}
	}
	if decided != 2 {
		t.Errorf("alice's journal holds %d of her decisions, want both: the one through each hub", decided)
	}
}

// TestMeTriesTheNextHub: a dashboard started while the first hub it
// knows is down asks the next one, and stays on it.
func TestMeTriesTheNextHub(t *testing.T) {
	fx := newFixture(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there
	cl, err := hubclient.New(hubclient.Options{URL: down, Others: []string{fx.srv.URL}, Token: tokens["carol"]})
	if err != nil {
		t.Fatal(err)
	}
	me, err := cl.Me(context.Background())
	if err != nil || me.Operator != "carol" {
		t.Fatalf("Me with the first hub down: %+v, %v", me, err)
	}
	if cl.URL() != fx.srv.URL {
		t.Errorf("the client uses %s after Me, want the hub that answered", cl.URL())
	}
	if _, err := hubclient.New(hubclient.Options{URL: fx.srv.URL, Others: []string{"http://alice:secret@hub.example"}, Token: "t"}); err == nil {
		t.Error("a hub URL with a password among Others was taken")
	}
}
