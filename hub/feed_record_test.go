package hub_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
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

// TestMovedDashboardNotTakenForAnotherJournal: three hubs share the
// journal on a real NATS cluster; alice's dashboard is on hub 1 and
// knows hubs 2 and 3. Hub 2 loses its record, then a decision through
// hub 1 adds a line hub 2 never reads. Hub 1 stops: the dashboard moves
// to hub 2, which cannot read the record to its end and so cannot tell
// whether the dashboard's journal continues its own. It refuses the
// feed for now (503, Retry-After) instead of answering from line 0,
// which the dashboard would take for another journal and stay stuck
// on; the dashboard moves on to hub 3, follows on, and its next
// decision goes through.
func TestMovedDashboardNotTakenForAnotherJournal(t *testing.T) {
	c := startNATSCluster(t)
	var stores []*jetstore.Store
	fxs := teamOnNATS(t, c, agenttest.StartAgent(t), func(st *jetstore.Store, _ *hub.Options) { stores = append(stores, st) })
	ag := fxs[0].ag
	alice := fxs[0].attach("alice", func(o *hubclient.Options) { o.Others = []string{fxs[1].srv.URL, fxs[2].srv.URL} })

	decide := func(what string, id a2a.TaskID) {
		t.Helper()
		alice.waitFor(what, func(f *model.Fleet) bool { return alice.inInbox(f, id) })
		var o approvals.Outcome
		for range 200 { // just after a move the feed may still be down for a moment
			if o = alice.svc.Send(context.Background(), alice.prepare(id, approvals.Input{Kind: approvals.KindReply, Text: what})); o.Problem != approvals.ProblemHub {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if o.Result != approvals.ResultAccepted {
			t.Fatalf("%s: %s (%v)\n%s", what, o.Words(), o.Err, alice.logs())
		}
	}
	decide("the first question", ag.Start("ask"))
	_ = stores[1].Close() // hub 2's record is gone: it reads no line from here on
	decide("the second question", ag.Start("ask"))
	n, hash := alice.svc.Followed()

	// Asked directly, hub 2 refuses a journal position past its own.
	req, _ := http.NewRequest(http.MethodGet, fxs[1].srv.URL+"/v1/feed?journal="+strconv.Itoa(n)+"&journal_hash="+url.QueryEscape(hash), nil)
	req.Header.Set("Authorization", "Bearer "+tokens["carol"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("hub 2, its record unreachable, answers a feed past its journal with %s (Retry-After %q), want 503 with Retry-After",
			resp.Status, resp.Header.Get("Retry-After"))
	}

	fxs[0].stop()
	decide("the third question, after the move", ag.Start("ask"))
	if got := alice.cl.URL(); got != fxs[2].srv.URL {
		t.Errorf("the dashboard uses %s, want hub 3 %s", got, fxs[2].srv.URL)
	}
	if !strings.Contains(alice.logs(), "cannot read the team's record to its end") {
		t.Errorf("the dashboard's log does not say hub 2 refused it for its record:\n%s", alice.logs())
	}
}
