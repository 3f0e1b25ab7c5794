package inbox

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/ui/common"
)

// fakeTeam is the hub as the inbox reads it: the operator and its roles
// (what the hub's GET /v1/me told the client), the feed up. The hub's
// own refusals are tested over HTTP in package hub.
type fakeTeam struct {
	operator string
	roles    map[string]bool // role -> allowed on every agent
}

func (f *fakeTeam) URL() string                                       { return "http://127.0.0.1:7777" }
func (f *fakeTeam) Operator() string                                  { return f.operator }
func (f *fakeTeam) Connected() (bool, string)                         { return true, "" }
func (f *fakeTeam) May(_, role string) bool                           { return f.roles[role] }
func (f *fakeTeam) ClaimWords(string, a2a.TaskID) string              { return "" }
func (f *fakeTeam) ClaimsVersion() uint64                             { return 0 }
func (f *fakeTeam) Release(context.Context, string, a2a.TaskID) error { return nil }
func (f *fakeTeam) Claim(context.Context, string, a2a.TaskID, string) error {
	return nil
}

// TestAWatchOnlyOperatorsKeysSayWhy: an operator the hub lets only watch
// (the dashboard is read-only for it, without --read-only) presses r, a,
// d, space and, in the journal, s: each says in the footer that the
// hub's roles let it only watch. The keys did nothing and said nothing,
// and the command line blamed a --read-only never passed. A dashboard
// run --read-only says that instead.
func TestAWatchOnlyOperatorsKeysSayWhy(t *testing.T) {
	for _, tc := range []struct {
		name string
		team common.Team
		want string
	}{
		{"watch-only on a hub", &fakeTeam{operator: "carol", roles: map[string]bool{}}, "operator carol may only watch on the hub at http://127.0.0.1:7777 (the hub's roles)"},
		{"--read-only", nil, "read-only: nothing is sent to agents (--read-only"},
	} {
		fx := newFixture(t, true)
		fx.ctx.Team = tc.team
		var c common.Component = newInbox(t, fx)
		for _, k := range []string{"r", "a", "d", "space"} {
			c, _ = sendKeys(c, k)
			said := fx.said()
			if !strings.Contains(said, tc.want) || c.(*Inbox).mode != modeList {
				t.Errorf("%s: %s says %q, want %q", tc.name, k, said, tc.want)
			}
		}
		if v := c.View(); strings.Contains(v, "a: approve") {
			t.Errorf("%s: the inbox offers approve:\n%s", tc.name, v)
		}
		var jc common.Component = NewJournal(fx.ctx, fx.svc, Options{})
		for _, k := range []string{"s", "R", "f"} {
			jc, _ = sendKeys(jc, k)
			if said := fx.said(); !strings.Contains(said, tc.want) {
				t.Errorf("%s: %s in the journal says %q, want %q", tc.name, k, said, tc.want)
			}
		}
	}
}

// TestADecidedPromptIsShownDecided: the deploy's prompt has a decision
// the inbox may not send over: on a team's hub one accepted (the hub
// takes one decision per prompt), anywhere one whose outcome is open.
// The inbox shows it decided, with who and when, offers no approve or
// deny, and a or d says why instead of opening a confirmation the hub
// or the journal would refuse. It offered approve and deny.
func TestADecidedPromptIsShownDecided(t *testing.T) {
	for _, tc := range []struct {
		name   string
		team   common.Team
		result approvals.Result
		want   string
	}{
		{"accepted, on a hub", &fakeTeam{operator: "ops", roles: map[string]bool{common.RoleApprove: true, common.RoleAnswer: true}},
			approvals.ResultAccepted, "the hub takes one decision per prompt"},
		{"unknown, local", nil, approvals.ResultUnknown, "nothing new is sent over it until it is settled"},
	} {
		fx := newFixture(t, false)
		fx.ctx.Team = tc.team
		elsewhere := otherProcess(t, fx)
		d, err := elsewhere.Prepare(elsewhere.ItemFor(fx.fleet.Task(deploy)), approvals.Input{Kind: approvals.KindApprove, Reason: "ship it"})
		if err != nil {
			t.Fatal(err)
		}
		if tc.result == approvals.ResultUnknown {
			fx.snd.mu.Lock()
			fx.snd.fail = context.DeadlineExceeded
			fx.snd.mu.Unlock()
		}
		if out := elsewhere.Send(context.Background(), d); out.Result != tc.result {
			t.Fatalf("%s: elsewhere: %s %v", tc.name, out.Result, out.Err)
		}
		fx.snd.mu.Lock()
		fx.snd.fail, fx.snd.sent = nil, nil
		fx.snd.mu.Unlock()
		m := newInbox(t, fx)
		var c common.Component = m
		c = refreshed(t, fx, c)
		m.selectKey(deploy)
		decided := `decided by ops@other at ` + t0.Local().Format("2006-01-02 15:04:05") + `: approved "ship it"`
		v := c.View()
		if !strings.Contains(v, decided) || strings.Contains(v, "a: approve") {
			t.Errorf("%s: the prompt is not shown decided (%q), or still offers approve:\n%s", tc.name, decided, v)
		}
		if h := helpKeys(m.ShortHelp()); strings.Contains(h, "approve") || strings.Contains(h, "deny") {
			t.Errorf("%s: the footer offers %s", tc.name, h)
		}
		fx.clk.add(time.Second)
		for _, k := range []string{"a", "d"} {
			c, _ = sendKeys(c, k)
			if said := fx.said(); m.mode != modeList || !strings.Contains(said, decided) || !strings.Contains(said, tc.want) || strings.Contains(said, "retry") {
				t.Errorf("%s: %s opened mode %d, said %q", tc.name, k, m.mode, said)
			}
		}
		c, _ = sendKeys(c, "space", "a") // marked: one answer for the marked
		if said := fx.said(); m.mode != modeList || !strings.Contains(said, decided) || strings.Contains(said, "answer it alone") {
			t.Errorf("%s: a on the marked deploy opened mode %d, said %q", tc.name, m.mode, said)
		}
		if len(fx.snd.sent) != 0 {
			t.Errorf("%s: %d messages sent", tc.name, len(fx.snd.sent))
		}
	}
}
