package approvals

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// promptWith is an AUTH_REQUIRED task whose prompt carries data.
func promptWith(data any) *a2a.Task {
	parts := []*a2a.Part{a2a.NewTextPart("approve?")}
	if data != nil {
		parts = append(parts, a2a.NewDataPart(data))
	}
	return &a2a.Task{ID: "t", Status: a2a.TaskStatus{State: a2a.TaskStateAuthRequired, Message: a2a.NewMessage(a2a.MessageRoleAgent, parts...)}}
}

// TestRequiredFor: rules match the prompt's data part: every field,
// dotted keys into objects, lists as any of, a TOML integer equal to the
// JSON number; the first matching rule wins; no match (or no data) is
// Required.
func TestRequiredFor(t *testing.T) {
	p := Policy{Required: 1, Rules: []Rule{
		{When: map[string]any{"environment": "production", "target.region": []any{"eu", "us"}}, Required: 3},
		{When: map[string]any{"environment": []any{"production", "prod"}}, Required: 2},
		{When: map[string]any{"replicas": int64(5)}, Required: 4},
	}}
	tests := []struct {
		name string
		data any
		want int
	}{
		{"no data", nil, 1},
		{"staging", map[string]any{"environment": "staging"}, 1},
		{"production", map[string]any{"environment": "production"}, 2},
		{"prod, any of", map[string]any{"environment": "prod"}, 2},
		{"production in eu, dotted", map[string]any{"environment": "production", "target": map[string]any{"region": "eu"}}, 3},
		{"production in asia", map[string]any{"environment": "production", "target": map[string]any{"region": "asia"}}, 2},
		{"a key with its dots wins", map[string]any{"environment": "production", "target.region": "us"}, 3},
		{"a number as JSON sends it", map[string]any{"replicas": 5.0}, 4},
		{"not an object", []any{"environment", "production"}, 1},
		{"the type differs", map[string]any{"replicas": "5"}, 1},
	}
	for _, tt := range tests {
		if got := p.RequiredFor(promptWith(tt.data)); got != tt.want {
			t.Errorf("%s: RequiredFor = %d, want %d", tt.name, got, tt.want)
		}
	}
	if got := (Policy{}).RequiredFor(promptWith(nil)); got != 1 {
		t.Errorf("the zero policy needs %d", got)
	}
}

// TestPolicyValidate: what cannot be a policy says which field.
func TestPolicyValidate(t *testing.T) {
	tests := []struct {
		p    Policy
		want string
	}{
		{Policy{Required: -1}, "required"},
		{Policy{Deny: "all"}, `deny: "all"`},
		{Policy{VoteTTL: -time.Second}, "vote_ttl"},
		{Policy{Rules: []Rule{{When: map[string]any{"a": "b"}}}}, "rule[1]: required"},
		{Policy{Rules: []Rule{{Required: 2}}}, "rule[1]: when"},
		{Policy{Rules: []Rule{{When: map[string]any{"a": map[string]any{"b": 1}}, Required: 2}}}, "rule[1]: when.a: a table is not matched"},
		{Policy{Rules: []Rule{{When: map[string]any{"a": []any{}}, Required: 2}}}, "an empty list matches nothing"},
	}
	for _, tt := range tests {
		err := tt.p.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.p, err, tt.want)
		}
	}
	var we *WhenError
	if err := (Rule{When: map[string]any{"x": nil}, Required: 2}).Validate(); !errors.As(err, &we) || we.Key != "x" {
		t.Errorf("a missing value: %v", err)
	}
	if err := fourEyes.Validate(); err != nil {
		t.Errorf("the tests' policy: %v", err)
	}
}

// TestApproversInTheDataPart: the default shape and a template's data
// object name every voter; a template's own "approvers" is kept; one
// click names none.
func TestApproversInTheDataPart(t *testing.T) {
	at := time.Date(2026, 12, 1, 14, 2, 0, 0, time.UTC)
	votes := []Voter{{Name: "alice", At: at, Reason: "window ok"}, {Name: "bob", At: at.Add(time.Minute)}}
	v := DecisionValues{Approve: true, Approver: "bob", At: at, Approvers: votes}
	for _, tpl := range []Template{{}, {Data: `{"ok": {{approved}}}`}} {
		parts, err := tpl.Render(v)
		if err != nil {
			t.Fatal(err)
		}
		list, _ := parts[1].Data().(map[string]any)["approvers"].([]any)
		if len(list) != 2 || list[0].(map[string]any)["name"] != "alice" || list[0].(map[string]any)["at"] != "2026-12-01T14:02:00Z" ||
			list[0].(map[string]any)["reason"] != "window ok" || list[1].(map[string]any)["name"] != "bob" {
			t.Errorf("template %+v: approvers %v", tpl, list)
		}
	}
	own, _ := Template{Data: `{"approvers": "the board"}`}.Render(v)
	if got := own[1].Data().(map[string]any)["approvers"]; got != "the board" {
		t.Errorf("a template's own approvers became %v", got)
	}
	v.Approvers = nil
	one, _ := Template{}.Render(v)
	if _, named := one[1].Data().(map[string]any)["approvers"]; named {
		t.Error("one click names approvers")
	}
}

// TestTallyWords: what a vote says it does.
func TestTallyWords(t *testing.T) {
	tests := []struct {
		t    Tally
		want string
	}{
		{Tally{Kind: KindApprove, Votes: make([]Voter, 1), Required: 2}, "your vote is 1 of 2: nothing is sent yet"},
		{Tally{Kind: KindApprove, Votes: make([]Voter, 2), Required: 2, Complete: true}, "your vote completes the approval: it will be sent"},
		{Tally{Kind: KindDeny, Votes: make([]Voter, 1), Required: 1, Complete: true}, "your vote completes the denial: it will be sent"},
	}
	for _, tt := range tests {
		if got := tt.t.Words(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.t, got, tt.want)
		}
	}
}

// TestTrimmedPromptTakesTheStrictestRule: a task whose content the
// fleet trimmed (model budget: its status message may have lost its
// data part) cannot be matched: it needs what the strictest rule needs,
// never fewer approvals than the prompt the agent sent.
func TestTrimmedPromptTakesTheStrictestRule(t *testing.T) {
	fx := newVoteFixture(t, fourEyes)
	alice := fx.open(t, "alice")
	id := fx.ag.Start("deploy production")
	mt := fx.asking(t, id, 0)
	trimmed := *mt.Snapshot
	trimmed.Status.Message = a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("approve deploy of 9f3c2e1 to production?"))
	mt.Snapshot, mt.Truncated = &trimmed, true
	d, err := alice.Prepare(alice.ItemFor(mt), Input{Kind: KindApprove, Reason: "ok"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Vote == nil || d.Vote.Complete || d.Vote.Required != 2 {
		t.Fatalf("a vote on a trimmed production prompt: %+v, want 1 of 2", d.Vote)
	}
	if vs := alice.VotesOn(alice.ItemFor(mt)); vs.Required != 2 {
		t.Errorf("the row's votes need %d", vs.Required)
	}
	if o := alice.Send(context.Background(), d); o.Result != ResultVoted {
		t.Errorf("the vote: %s (%v)", o.Words(), o.Err)
	}
	if n := fx.ag.OnTask(id); n != 0 {
		t.Errorf("the agent received %d messages after one vote", n)
	}
}
