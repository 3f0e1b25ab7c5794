package hub_test

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"a2atop/approvals"
	"a2atop/model"
)

// get asks the fixture's hub for path with token ("" sends none) and
// returns the status and the body.
func (fx *fixture) get(path, token string) (int, string) {
	fx.t.Helper()
	req, err := http.NewRequest(http.MethodGet, fx.srv.URL+path, nil)
	if err != nil {
		fx.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fx.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// metric is the value of the sample named by series (a metric name and
// its labels exactly as the text format writes them) in a scrape, or -1.
func metric(scrape, series string) float64 {
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`)
	m := re.FindStringSubmatch(scrape)
	if m == nil {
		return -1
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return -1
	}
	return v
}

// TestMetricsCountWhatTheHubDid: a real hub over HTTP, a real agent, two
// dashboards, one approval and one decision that came second: /metrics
// counts the feed's subscribers, the decisions by result, the journal's
// appends and the agent's health and tasks; it takes an operator's token
// and names no token.
func TestMetricsCountWhatTheHubDid(t *testing.T) {
	fx := newFixture(t)
	alice, bob := fx.attach("alice"), fx.attach("bob")
	id := fx.ag.Start("ask")
	for _, d := range []*dash{alice, bob} {
		d.waitFor("the question", func(f *model.Fleet) bool { return d.inInbox(f, id) })
	}
	late := bob.prepare(id, approvals.Input{Kind: approvals.KindReply, Text: "second"})
	if o := alice.svc.Send(context.Background(), alice.prepare(id, approvals.Input{Kind: approvals.KindReply, Text: "first"})); o.Result != approvals.ResultAccepted {
		t.Fatalf("alice: %s", o.Words())
	}
	if o := bob.svc.Send(context.Background(), late); o.Problem != approvals.ProblemDecided {
		t.Fatalf("bob after alice: %s, want decided by alice", o.Words())
	}

	if status, body := fx.get("/metrics", ""); status != http.StatusUnauthorized {
		t.Fatalf("/metrics without a token: %d %q, want 401", status, body)
	}
	var scrape string
	deadline := time.Now().Add(10 * time.Second)
	for {
		var status int
		status, scrape = fx.get("/metrics", tokens["carol"]) // a watcher may read the figures
		if status != http.StatusOK {
			t.Fatalf("/metrics: %d %s", status, scrape)
		}
		if metric(scrape, `a2atop_hub_agent_up{agent="agent"}`) == 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	want := map[string]func(float64) bool{
		`a2atop_hub_feed_subscribers`:                                    func(v float64) bool { return v == 2 },
		`a2atop_hub_decisions_total{result="accepted",status="OK"}`:      func(v float64) bool { return v == 1 },
		`a2atop_hub_decisions_total{result="refused",status="Conflict"}`: func(v float64) bool { return v == 1 },
		`a2atop_hub_decision_seconds_count`:                              func(v float64) bool { return v == 2 },
		`a2atop_hub_journal_append_seconds_count`:                        func(v float64) bool { return v >= 2 }, // the decision and its outcome, at least
		`a2atop_hub_journal_append_errors_total`:                         func(v float64) bool { return v == 0 },
		`a2atop_hub_events_applied_total`:                                func(v float64) bool { return v >= 1 },
		`a2atop_hub_agent_up{agent="agent"}`:                             func(v float64) bool { return v == 1 },
		`a2atop_hub_claims`:                                              func(v float64) bool { return v >= 0 },
		`go_goroutines`:                                                  func(v float64) bool { return v > 0 },
	}
	for series, ok := range want {
		if v := metric(scrape, series); !ok(v) {
			t.Errorf("%s = %v", series, v)
		}
	}
	if !regexp.MustCompile(`(?m)^a2atop_hub_agent_health\{agent="agent",state="(streaming|sweeping)"\} 1$`).MatchString(scrape) {
		t.Errorf("the agent's health is not in the scrape:\n%s", grepLines(scrape, "agent_health"))
	}
	if !regexp.MustCompile(`(?m)^a2atop_hub_agent_tasks\{agent="agent",class="(active|interrupted|terminal)"\} [1-9]`).MatchString(scrape) {
		t.Errorf("the agent's task is not counted:\n%s", grepLines(scrape, "agent_tasks"))
	}
	for name, tok := range tokens {
		if strings.Contains(scrape, tok) {
			t.Errorf("the scrape holds %s's token", name)
		}
	}
}

func grepLines(s, sub string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// TestProbes: /healthz and /readyz answer without a token, say nothing
// of the team, and /readyz turns 503 with the reason once the hub stops.
func TestProbes(t *testing.T) {
	fx := newFixture(t)
	fx.attach("carol").waitFor("the agent", func(f *model.Fleet) bool { return f.Agent("agent") != nil })
	if status, body := fx.get("/healthz", ""); status != http.StatusOK || body != "ok\n" {
		t.Errorf("/healthz: %d %q", status, body)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		status, body := fx.get("/readyz", "")
		if status == http.StatusOK && body == "ready\n" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz of a running hub: %d %q", status, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	fx.halt()
	status, body := fx.get("/readyz", "")
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "not ready: the hub is stopping") {
		t.Errorf("/readyz of a stopped hub: %d %q, want 503 saying it stops", status, body)
	}
	for _, p := range []string{"/healthz", "/readyz"} {
		_, body := fx.get(p, "")
		if strings.Contains(body, "agent") || strings.Contains(body, fx.journal) {
			t.Errorf("%s names the team: %q", p, body)
		}
	}
}
