package hub_test

import (
	"strings"
	"testing"
	"time"

	"a2atop/internal/agenttest"
)

// waitReadyz polls a hub's /readyz until its answer starts with want,
// and returns the status and body.
func (fx *fixture) waitReadyz(t *testing.T, want string) (int, string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		status, body := fx.get("/readyz", "")
		if strings.HasPrefix(body, want) || time.Now().After(deadline) {
			return status, body
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestOpsOnNATS: three hubs on a real three-node JetStream record.
// /metrics counts the record's appends in a2atop_hub_journal_append_seconds;
// with two of the three servers stopped (no majority), /readyz of every
// hub says not ready, the record unreachable, and the refused appends
// are counted as errors; with the servers back, every hub is ready again
// by itself.
func TestOpsOnNATS(t *testing.T) {
	c := startNATSCluster(t)
	ag := agenttest.StartAgent(t)
	fxs := teamOnNATS(t, c, ag)
	dashes := []*dash{fxs[0].attach("alice"), fxs[1].attach("dave"), fxs[2].attach("frank", asFrank)}
	raceRounds(t, ag, dashes, 2)
	for k, fx := range fxs {
		if status, body := fx.get("/readyz", ""); status != 200 || body != "ready\n" {
			t.Fatalf("hub %d on a reachable record: /readyz %d %q", k+1, status, body)
		}
	}
	appends, errs := 0.0, 0.0
	for _, fx := range fxs {
		_, scrape := fx.get("/metrics", tokens["alice"])
		appends += metric(scrape, "a2atop_hub_journal_append_seconds_count")
		errs += metric(scrape, "a2atop_hub_journal_append_errors_total")
	}
	if appends < 2 || errs != 0 {
		t.Fatalf("the hubs count %v appends to the record and %v errors, want at least the 2 winners' and none (a decision that came second is no failed append)", appends, errs)
	}
	c.stop(0)
	c.stop(1)
	for k, fx := range fxs {
		status, body := fx.waitReadyz(t, "not ready")
		if status != 503 || body != "not ready: the team's record is unreachable (the hub's log has the error)\n" {
			t.Fatalf("hub %d with no majority: /readyz %d %q", k+1, status, body)
		}
	}
	raceWhile(t, ag, dashes, 1, nil)
	_, scrape := fxs[0].get("/metrics", tokens["alice"])
	if n := metric(scrape, "a2atop_hub_journal_append_errors_total"); n < 1 {
		t.Errorf("hub 1's journal_append_errors_total is %v after a refused append, want at least 1", n)
	}
	c.start(0)
	c.start(1)
	for k, fx := range fxs {
		if status, body := fx.waitReadyz(t, "ready"); status != 200 {
			t.Fatalf("hub %d after the servers came back: /readyz %d %q", k+1, status, body)
		}
	}
}

// TestDashboardMovesToAnotherHubOnNATS: TestDashboardMovesToAnotherHubOfTheTeam
// with the hubs' record in a real three-node JetStream cluster instead of
// a shared file: alice's dashboard (--hub hub1,hub2) is on hub 2 once
// hub 1 stops, its journal continues, and each question received exactly
// one message.
func TestDashboardMovesToAnotherHubOnNATS(t *testing.T) {
	c := startNATSCluster(t)
	fxs := teamOnNATS(t, c, agenttest.StartAgent(t))
	movesToTheOtherHub(t, fxs[0], fxs[1])
}
